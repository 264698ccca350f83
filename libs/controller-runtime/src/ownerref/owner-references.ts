import { groupOf, type KubeObject, type OwnerReference } from '../object.js';

function describeObject(obj: KubeObject): string {
  const { namespace, name } = obj.metadata;
  return namespace ? `${namespace}/${name ?? ''}` : (name ?? '');
}

/** The object already has a controller reference to another owner (controllerutil `AlreadyOwnedError`). */
export class AlreadyOwnedError extends Error {
  readonly code = 'OWNERREF_ALREADY_OWNED';
  constructor(
    /** `namespace/name` of the owned object. */
    readonly object: string,
    /** The controller reference already on the object. */
    readonly owner: OwnerReference,
  ) {
    super(`object ${object} is already owned by another ${owner.kind} controller ${owner.name}`);
    this.name = 'AlreadyOwnedError';
  }
}

/**
 * A namespaced owner for an object in another namespace or a cluster-scoped object; the garbage collector would
 * treat such a reference as unresolvable.
 */
export class CrossNamespaceOwnerError extends Error {
  readonly code = 'OWNERREF_CROSS_NAMESPACE';
  constructor(
    readonly ownerNamespace: string,
    readonly objectNamespace: string | undefined,
  ) {
    super(
      objectNamespace
        ? `cross-namespace owner references are disallowed, owner's namespace ${ownerNamespace}, obj's namespace ${objectNamespace}`
        : `cluster-scoped resource must not have a namespace-scoped owner, owner's namespace ${ownerNamespace}`,
    );
    this.name = 'CrossNamespaceOwnerError';
  }
}

/** The owner lacks a field an owner reference needs (`apiVersion`, `kind`, `metadata.name`, `metadata.uid`). */
export class InvalidOwnerError extends Error {
  readonly code = 'OWNERREF_INVALID_OWNER';
  constructor(readonly missing: string[]) {
    super(`owner is missing ${missing.join(', ')}`);
    this.name = 'InvalidOwnerError';
  }
}

function referenceTo(owner: KubeObject, obj: KubeObject): OwnerReference {
  const { apiVersion, kind } = owner;
  const { name, uid, namespace: ownerNamespace } = owner.metadata;
  if (!apiVersion || !kind || !name || !uid) {
    const missing = Object.entries({ apiVersion, kind, 'metadata.name': name, 'metadata.uid': uid })
      .filter(([, value]) => !value)
      .map(([field]) => field);
    throw new InvalidOwnerError(missing);
  }
  const objectNamespace = obj.metadata.namespace || undefined;
  if (ownerNamespace && ownerNamespace !== objectNamespace) {
    throw new CrossNamespaceOwnerError(ownerNamespace, objectNamespace);
  }
  return { apiVersion, kind, name, uid };
}

/** Same uid, or (as controller-runtime's `referSameObject`) same API group, kind and name. */
function refersToSameObject(a: OwnerReference, b: OwnerReference): boolean {
  return (
    a.uid === b.uid ||
    (groupOf(a.apiVersion) === groupOf(b.apiVersion) && a.kind === b.kind && a.name === b.name)
  );
}

function upsert(obj: KubeObject, ref: OwnerReference): void {
  const refs = obj.metadata.ownerReferences ?? [];
  const index = refs.findIndex((r) => refersToSameObject(r, ref));
  obj.metadata.ownerReferences = index < 0 ? [...refs, ref] : refs.map((r, i) => (i === index ? ref : r));
}

/**
 * Makes `owner` the controller of `obj` (controllerutil `SetControllerReference`): an owner reference with
 * `controller: true` and `blockOwnerDeletion: true`, replacing an existing reference to the same owner (same
 * uid, or same API group, kind and name). Sets `obj.metadata.ownerReferences` to a new array.
 *
 * @throws InvalidOwnerError when the owner lacks apiVersion, kind, name or uid.
 * @throws CrossNamespaceOwnerError when a namespaced owner would own an object in another namespace or a
 *   cluster-scoped object (a cluster-scoped owner may own anything).
 * @throws AlreadyOwnedError when another owner is already the controller of `obj`.
 */
export function setControllerReference(owner: KubeObject, obj: KubeObject): void {
  const ref: OwnerReference = { ...referenceTo(owner, obj), controller: true, blockOwnerDeletion: true };
  const existing = getControllerOf(obj);
  if (existing && !refersToSameObject(existing, ref))
    throw new AlreadyOwnedError(describeObject(obj), existing);
  upsert(obj, ref);
}

/**
 * Adds a non-controller owner reference to `owner` on `obj` (controllerutil `SetOwnerReference`), replacing an
 * existing reference to the same owner. Sets `obj.metadata.ownerReferences` to a new array.
 *
 * @throws InvalidOwnerError or CrossNamespaceOwnerError, as `setControllerReference`.
 */
export function setOwnerReference(owner: KubeObject, obj: KubeObject): void {
  upsert(obj, referenceTo(owner, obj));
}

/** The owner reference of `obj` marked `controller: true`, if any (apimachinery `GetControllerOf`). */
export function getControllerOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((r) => r.controller === true);
}

/** Whether `owner` (by uid) is the controller of `obj` (apimachinery `IsControlledBy`). */
export function isControlledBy(obj: KubeObject, owner: KubeObject): boolean {
  const ref = getControllerOf(obj);
  return ref !== undefined && owner.metadata.uid !== undefined && ref.uid === owner.metadata.uid;
}
