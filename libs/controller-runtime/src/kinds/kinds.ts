import type {
  V1ConfigMap,
  V1Deployment,
  V1Pod,
  V1PodDisruptionBudget,
  V1ResourceRequirements,
  V1Secret,
  V1Service,
  V1StatefulSet,
} from '@kubernetes/client-node';
import { type KubeObject, kind } from '../object.js';

// Built-in kinds as operators read and write them, typed by the client library's models (one source for
// every field) but in their JSON form: the runtime's clients pass plain JSON, so a timestamp is the RFC 3339
// string the API server sent, not the Date client-node's classes would hold, and metadata is always there.

/** A client-node model as JSON carries it: every Date a string, recursively. */
export type Wire<T> = T extends Date
  ? string
  : T extends readonly (infer U)[]
    ? Wire<U>[]
    : T extends object
      ? { [K in keyof T]: Wire<T[K]> }
      : T;

/** A client-node object model as JSON, with the runtime's object metadata. */
export type WireObject<T extends { metadata?: unknown }> = Omit<Wire<T>, 'metadata'> & KubeObject;

export type ConfigMap = WireObject<V1ConfigMap>;
export type Deployment = WireObject<V1Deployment>;
export type Pod = WireObject<V1Pod>;
export type ResourceRequirements = Wire<V1ResourceRequirements>;
export type PodDisruptionBudget = WireObject<V1PodDisruptionBudget>;
export type Secret = WireObject<V1Secret>;
export type Service = WireObject<V1Service>;
export type StatefulSet = WireObject<V1StatefulSet>;

/** The tokens the clients, the cache and the builder take for these kinds, typed by their objects. */
export const CONFIG_MAP = kind<ConfigMap>('v1', 'ConfigMap');
export const DEPLOYMENT = kind<Deployment>('apps/v1', 'Deployment');
export const POD = kind<Pod>('v1', 'Pod');
export const POD_DISRUPTION_BUDGET = kind<PodDisruptionBudget>('policy/v1', 'PodDisruptionBudget');
export const SECRET = kind<Secret>('v1', 'Secret');
export const SERVICE = kind<Service>('v1', 'Service');
export const STATEFUL_SET = kind<StatefulSet>('apps/v1', 'StatefulSet');

type ResourceList = Readonly<Record<string, string | number>>;

/**
 * A container's resources from a custom resource's spec (the runtime's `resourceRequirements` schema) in the
 * form client-node's model types them: a quantity given as a JSON number, which the API server reads as well,
 * becomes its decimal string (`1` → `"1"`, `0.5` → `"0.5"`), which is the same quantity.
 */
export function containerResources(spec: {
  readonly limits?: ResourceList;
  readonly requests?: ResourceList;
}): ResourceRequirements {
  const strings = (list: ResourceList) =>
    Object.fromEntries(Object.entries(list).map(([name, q]) => [name, String(q)]));
  return {
    ...(spec.limits ? { limits: strings(spec.limits) } : {}),
    ...(spec.requests ? { requests: strings(spec.requests) } : {}),
  };
}
