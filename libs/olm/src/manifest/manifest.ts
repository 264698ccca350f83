/**
 * Plain Kubernetes manifests as the OLM tools decode them, and the small helpers every reader and validator
 * shares (a value's shape, an object's group/version/kind). The base Kubernetes types are the runtime's.
 */

import type { KubeObject } from '@opkit/controller-runtime';
import type { GroupVersionKind } from '@opkit/controller-runtime/client';

/** Any JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object. */
export interface JsonObject {
  [key: string]: JsonValue;
}

/**
 * A Kubernetes manifest as decoded from YAML or JSON: the runtime's object with its type always given, and
 * every other field kept as read.
 */
export type Manifest = KubeObject & {
  apiVersion: string;
  kind: string;
  [key: string]: unknown;
};

/** Kind of a CustomResourceDefinition. */
export const CRD_KIND = 'CustomResourceDefinition';

/** True when `value` is a plain (non-array) object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The group of an `apiVersion` (`""` for the core group). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** The version of an `apiVersion`. */
export function versionOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
}

/** The GVK of a manifest. */
export function gvkOf(obj: { apiVersion?: unknown; kind?: unknown }): GroupVersionKind {
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  return {
    group: groupOf(apiVersion),
    version: versionOf(apiVersion),
    kind: typeof obj.kind === 'string' ? obj.kind : '',
  };
}

/** Go's `schema.GroupVersionKind.String()`: `group/version, Kind=kind` (the slash is kept for the core group). */
export function formatGvk(gvk: GroupVersionKind): string {
  return `${gvk.group}/${gvk.version}, Kind=${gvk.kind}`;
}

/** A deep copy of a JSON-compatible value. */
export function deepCopy<T>(value: T): T {
  return structuredClone(value);
}
