/**
 * Kubernetes objects as they travel over the wire (plain JSON: timestamps are RFC 3339 strings). Our own
 * types rather than client-node's model classes, which turn some timestamps into Dates and not others.
 */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: unknown[];
}

/** Any Kubernetes object. Specific kinds extend it with `spec`/`status`/`data`. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
}

/**
 * An object as the API server returns it (from a read, a watch or a write): `T` with the name, uid and
 * resourceVersion the server always sets. What the client, the cache and watch handlers hand to operator code.
 */
export type Stored<T extends KubeObject> = T & {
  metadata: T['metadata'] & { name: string; uid: string; resourceVersion: string };
};

/**
 * The namespace of a namespaced object read from the API server, which always sets it; `Stored` cannot tell
 * namespaced kinds from cluster-scoped ones, so this checks instead. Throws for an object without one.
 */
export function namespaceOf(obj: Stored<KubeObject>): string {
  const { namespace, name } = obj.metadata;
  if (!namespace)
    throw new Error(`${obj.kind ?? 'object'} ${name} has no namespace: is its kind namespaced?`);
  return namespace;
}

/** Carries a kind's object type in its token; no token has it at run time. */
declare const objectOfKind: unique symbol;

/**
 * A kind's token, `{ apiVersion: 'apps/v1', kind: 'Deployment' }`, typed with the objects of that kind: the
 * clients, the cache and the builder infer `T` from it, so `client.get(DEPLOYMENT, …)` returns a
 * `Stored<Deployment>` and `client.get<Pod>(DEPLOYMENT, …)` does not type-check. A plain `{ apiVersion, kind }`
 * is a `Kind` of any object. Objects carry their kind themselves.
 */
export interface Kind<T extends KubeObject = KubeObject> {
  readonly apiVersion: string;
  readonly kind: string;
  readonly [objectOfKind]?: T;
}

/** The token of a kind whose objects are `T`: `export const WIDGET = kind<Widget>('example.com/v1', 'Widget')`. */
export function kind<T extends KubeObject>(apiVersion: string, kind: string): Kind<T> {
  return { apiVersion, kind };
}

/** A status condition with Kubernetes semantics (metav1.Condition). */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** `apps/v1` + `Deployment` → `{ group: 'apps', version: 'v1', kind: 'Deployment' }`. */
export function gvkOf(apiVersion: string, kind: string): GroupVersionKind {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion, kind }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1), kind };
}

/** `apps` of `apps/v1`; the core group (`v1`) is `''`. Without the object {@link gvkOf} builds. */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

export function apiVersionOf(gvk: GroupVersionKind): string {
  return gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
}

/** The `namespace/name` key of an object (just `name` for cluster-scoped objects), as queues and caches use. */
export function objectKey(obj: { metadata: ObjectMeta }): string {
  const { namespace, name } = obj.metadata;
  return namespace ? `${namespace}/${name}` : (name ?? '');
}
