// A small custom resource and a controller that owns one ConfigMap per object: the test subject of the
// runtime's end-to-end suites.

import type { CachedClient } from '../../src/client/cached-client.js';
import type { DirectClient } from '../../src/client/direct-client.js';
import { isNotFound } from '../../src/errors/errors.js';
import type { KubeObject, Stored } from '../../src/object.js';
import type { Reconciler } from '../../src/reconcile/reconcile.js';

export interface Widget extends KubeObject {
  spec: { value: string };
  status?: { observedGeneration?: number; configMap?: string };
}

export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

export const WIDGET = { apiVersion: 'test.opkit.dev/v1', kind: 'Widget' } as const;
export const CONFIG_MAP = { apiVersion: 'v1', kind: 'ConfigMap' } as const;

export const widgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.test.opkit.dev' },
  spec: {
    group: 'test.opkit.dev',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { value: { type: 'string' } }, required: ['value'] },
              status: {
                type: 'object',
                properties: {
                  observedGeneration: { type: 'integer' },
                  configMap: { type: 'string' },
                  conditions: {
                    type: 'array',
                    items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                  },
                },
              },
            },
          },
        },
      },
    ],
  },
};

/** Installs the Widget CRD (idempotent) and waits until it is served. */
export async function installWidgetCrd(api: DirectClient): Promise<void> {
  try {
    await api.create(widgetCrd);
  } catch (error) {
    if (!(error instanceof Error && /already exists/.test(error.message))) throw error;
  }
  for (let i = 0; i < 100; i++) {
    try {
      await api.mapping(WIDGET.apiVersion, WIDGET.kind);
      await api.list(WIDGET, { limit: 1 });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error('the Widget CRD did not become served');
}

/**
 * The reconciler: a ConfigMap `<name>-config` with `value` from the spec, owned by the widget; status records
 * the generation seen. It writes only what differs from the cache, so an unchanged world costs no writes.
 */
export function widgetReconciler(
  client: CachedClient,
  hooks: { onReconcile?: (key: string) => void } = {},
): Reconciler {
  return async (req) => {
    hooks.onReconcile?.(`${req.namespace}/${req.name}`);
    let widget: Stored<Widget>;
    try {
      widget = await client.get<Widget>(WIDGET, req.name, req.namespace);
    } catch (error) {
      if (isNotFound(error)) return; // deleted: the ConfigMap goes by garbage collection
      throw error;
    }
    const name = `${widget.metadata.name}-config`;
    const desired: ConfigMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name,
        namespace: widget.metadata.namespace,
        ownerReferences: [
          {
            apiVersion: WIDGET.apiVersion,
            kind: WIDGET.kind,
            name: widget.metadata.name,
            uid: widget.metadata.uid,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      data: { value: widget.spec.value },
    };
    let current: ConfigMap | undefined;
    try {
      current = await client.get<ConfigMap>(CONFIG_MAP, name, req.namespace);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    const owned = current?.metadata.ownerReferences?.some(
      (r) => r.uid === widget.metadata.uid && r.controller,
    );
    if (!current || current.data?.value !== widget.spec.value || !owned) await client.apply(desired);
    if (
      widget.status?.observedGeneration !== widget.metadata.generation ||
      widget.status?.configMap !== name
    ) {
      await client.patch(
        { ...WIDGET, name: req.name, namespace: req.namespace },
        { status: { observedGeneration: widget.metadata.generation, configMap: name } },
        'merge',
        { subresource: 'status' },
      );
    }
  };
}

/** Creates `count` widgets, `concurrency` at a time. */
export async function createWidgets(
  api: DirectClient,
  namespace: string,
  count: number,
  concurrency = 16,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        await api.create<Widget>({
          ...WIDGET,
          metadata: { name: `w-${String(i).padStart(4, '0')}`, namespace },
          spec: { value: `v${i}` },
        });
      }
    }),
  );
}
