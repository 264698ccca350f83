import { randomUUID } from 'node:crypto';
import type { ObjectClient } from '../client/object-client.js';
import type {
  ApplyOptions,
  DeleteOptions,
  ListOptions,
  ObjectList,
  ObjectRef,
  PatchOptions,
  PatchType,
  WriteOptions,
} from '../client/options.js';
import { ApiError } from '../errors/errors.js';
import { parseLabelSelector } from '../internal/cache/label-selector.js';
import { deepFreeze, type IndexFunc, OWNER_UID_INDEX } from '../internal/cache/store.js';
import { gvkOf, type Kind, type KubeObject, type ObjectMeta, objectKey, type Stored } from '../object.js';
import { applyMerge, deepEqual, isPlainObject, jsonPatch, mergePatch, PatchError } from './patches.js';

/** The client methods FakeClient records and lets interceptors replace. */
export type Verb = 'get' | 'list' | 'create' | 'update' | 'updateStatus' | 'patch' | 'apply' | 'delete';

const WRITE_VERBS: ReadonlySet<Verb> = new Set<Verb>([
  'create',
  'update',
  'updateStatus',
  'patch',
  'apply',
  'delete',
]);

/** One call made on a FakeClient, as `actions` lists it (the name is absent for list and generateName). */
export interface Action {
  readonly verb: Verb;
  readonly kind: string;
  readonly namespace?: string;
  readonly name?: string;
}

/** The arguments of a call, by verb, as an interceptor sees them (defaults filled in). */
export interface CallArgs {
  get: { readonly type: Kind; readonly name: string; readonly namespace?: string };
  list: { readonly type: Kind; readonly options: ListOptions };
  create: { readonly obj: KubeObject; readonly options: WriteOptions };
  update: { readonly obj: KubeObject; readonly options: WriteOptions };
  updateStatus: { readonly obj: KubeObject; readonly options: WriteOptions };
  patch: {
    readonly target: ObjectRef;
    readonly patch: unknown;
    readonly patchType: PatchType;
    readonly options: PatchOptions;
  };
  apply: { readonly obj: KubeObject; readonly options: ApplyOptions };
  delete: { readonly target: ObjectRef; readonly options: DeleteOptions };
}

/** What a call resolves to, by verb. */
export interface CallResults {
  get: KubeObject;
  list: ObjectList<KubeObject>;
  create: KubeObject;
  update: KubeObject;
  updateStatus: KubeObject;
  patch: KubeObject;
  apply: KubeObject;
  delete: undefined;
}

/** A call handed to an interceptor: its arguments, its place among calls of the verb, and the real call. */
export type InterceptedCall<V extends Verb> = CallArgs[V] & {
  readonly verb: V;
  /** 1 for the first call of this verb on the client, 2 for the second… (`reset` does not restart it). */
  readonly count: number;
  /** The entry recorded in the action log for this call. */
  readonly action: Action;
  /**
   * Runs the call against the in-memory objects, for interceptors that wrap rather than replace it: return
   * its promise (returning undefined after calling `next` would run the call a second time).
   */
  readonly next: () => Promise<CallResults[V]>;
};

/**
 * Intercepts one verb. Return undefined to let the call run as usual; return a promise to replace the call
 * with it (reject it, or throw, to make the call fail):
 *
 * ```ts
 * update: ({ count }) =>
 *   count === 3 ? Promise.reject(new ApiError(500, 'InternalError', 'etcd is down', 'PUT', '')) : undefined,
 * ```
 */
export type Interceptor<V extends Verb> = (call: InterceptedCall<V>) => Promise<CallResults[V]> | undefined;

/** Interceptors by verb. */
export type Interceptors = { readonly [V in Verb]?: Interceptor<V> };

export interface FakeClientOptions {
  /** Objects the client starts with (copied; missing uid, resourceVersion, generation and creationTimestamp filled in). */
  readonly objects?: readonly KubeObject[];
  /**
   * Custom kinds with a status subresource (`subresources: { status: {} }` in their CRD). Built-in kinds that
   * have one (Pod, Service, Namespace, Node, PersistentVolume(Claim), Deployment, StatefulSet, DaemonSet,
   * ReplicaSet, Job, CronJob, Ingress, PodDisruptionBudget, HorizontalPodAutoscaler, …) always do. Kinds are
   * matched by API group and kind, whatever the version.
   */
  readonly statusSubresource?: readonly Kind[];
  /** Replace or fail chosen calls. */
  readonly interceptors?: Interceptors;
  /** @default 'fake-client' */
  readonly fieldManager?: string;
  /** The clock for creationTimestamp and deletionTimestamp. @default () => new Date() */
  readonly now?: () => Date;
}

/** `group/Kind` of built-in kinds with a status subresource. */
const BUILT_IN_STATUS_SUBRESOURCE: readonly string[] = [
  '/Pod',
  '/Service',
  '/Node',
  '/Namespace',
  '/PersistentVolume',
  '/PersistentVolumeClaim',
  '/ReplicationController',
  '/ResourceQuota',
  'apps/Deployment',
  'apps/StatefulSet',
  'apps/DaemonSet',
  'apps/ReplicaSet',
  'batch/Job',
  'batch/CronJob',
  'autoscaling/HorizontalPodAutoscaler',
  'policy/PodDisruptionBudget',
  'networking.k8s.io/Ingress',
  'certificates.k8s.io/CertificateSigningRequest',
  'storage.k8s.io/VolumeAttachment',
  'apiextensions.k8s.io/CustomResourceDefinition',
  'apiregistration.k8s.io/APIService',
  'flowcontrol.apiserver.k8s.io/FlowSchema',
  'flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration',
];

/** Internal view of an object: `status`, `spec`, `data`… are plain properties. */
type Doc = KubeObject & Record<string, unknown>;

const METHODS: Record<Verb, string> = {
  get: 'GET',
  list: 'GET',
  create: 'POST',
  update: 'PUT',
  updateStatus: 'PUT',
  patch: 'PATCH',
  apply: 'PATCH',
  delete: 'DELETE',
};

const GENERATED_NAME_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

const typeKey = (type: Kind) => `${type.apiVersion}/${type.kind}`;
const keyOf = (name: string, namespace?: string) => (namespace ? `${namespace}/${name}` : name);

function groupKind(type: Kind): string {
  return `${gvkOf(type.apiVersion, type.kind).group}/${type.kind}`;
}

function typeOf(obj: KubeObject): Kind {
  if (!obj.apiVersion || !obj.kind) {
    throw new TypeError(
      `object ${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''} has no apiVersion/kind`,
    );
  }
  return { apiVersion: obj.apiVersion, kind: obj.kind };
}

function statusOf(obj: KubeObject): unknown {
  return (obj as Doc).status;
}

function withStatus(obj: KubeObject, status: unknown): void {
  if (status === undefined) delete (obj as Doc).status;
  else (obj as Doc).status = status;
}

/** The part of an object whose changes bump `metadata.generation`: everything but metadata and status. */
function content(obj: KubeObject): Record<string, unknown> {
  const { metadata: _metadata, status: _status, apiVersion: _apiVersion, kind: _kind, ...rest } = obj as Doc;
  return rest;
}

/** The metadata fields clients cannot write. */
const SERVER_OWNED = [
  'name',
  'namespace',
  'uid',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'generation',
] as const satisfies readonly (keyof ObjectMeta)[];

/** `proposed` metadata with the fields clients cannot write taken from the stored object. */
function withServerOwned(proposed: ObjectMeta, stored: ObjectMeta): ObjectMeta {
  const meta: ObjectMeta = { ...proposed };
  for (const field of SERVER_OWNED) {
    if (stored[field] === undefined) delete meta[field];
    else Object.assign(meta, { [field]: stored[field] });
  }
  return meta;
}

function actionOf(verb: Verb, type: Kind, namespace: string | undefined, name: string | undefined): Action {
  return { verb, kind: type.kind, ...(namespace ? { namespace } : {}), ...(name ? { name } : {}) };
}

/**
 * An in-memory stand-in for the manager's `CachedClient`, to unit-test reconcilers without a cluster: hand it to
 * a reconciler written against {@link ObjectClient}, run the reconcile, then read the objects back and check
 * the {@link FakeClient.actions | action log}.
 *
 * It behaves like the API server where reconcilers depend on it:
 * - `create` sets uid, resourceVersion (one counter for all objects), `generation: 1` and
 *   creationTimestamp, fills in `generateName`, and fails with 409 AlreadyExists on an existing object;
 * - `update`, `patch` and `apply` fail with 409 Conflict when the object carries a stale resourceVersion,
 *   bump `generation` only when something other than metadata and status changed, and write nothing
 *   (resourceVersion unchanged) when nothing changed;
 * - for kinds with a status subresource (see {@link FakeClientOptions.statusSubresource}) status is written
 *   only through `updateStatus`, `patch(…, { subresource: 'status' })` and `apply(…, { subresource: 'status' })`,
 *   which change nothing else; `create` drops the status of such kinds. The status calls fail with 404 on
 *   other kinds, as the server does;
 * - `delete` of an object with finalizers only sets `deletionTimestamp` (and bumps `generation`); the write
 *   that removes the last finalizer then deletes it. No finalizer can be added to an object being deleted;
 * - `get` and `list` return deep copies, so a test cannot change the stored objects by accident.
 *
 * Simplifications:
 * - `apply` is not server-side apply: it merges the given fields into the live object (objects merge
 *   recursively, arrays and scalars replace, `null` is ignored), without field ownership, so fields a
 *   previous apply set and this one omits are kept and `force` never matters; managedFields are not kept;
 * - `strategic` merge patches are not supported (use `merge` or `json`);
 * - deleting an object does NOT garbage-collect its dependents: objects whose ownerReferences point to it
 *   stay until the test deletes them; `propagationPolicy` and `gracePeriodSeconds` are ignored;
 * - there is no watch, no defaulting, no validation and no admission; namespaces need not exist, and an
 *   object without a namespace is simply stored without one;
 * - `list` ignores `limit` and `continue`, and rejects `fieldSelector` (the `CachedClient` ignores it: use
 *   `indexField` and `matchingFields`, as with the real cache).
 *
 * @example
 * ```ts
 * const client = new FakeClient({ objects: [greeting], statusSubresource: [{ apiVersion: 'example.com/v1', kind: 'Greeting' }] });
 * await reconcile(client, { namespace: 'default', name: 'hello' });
 * client.reset();
 * await reconcile(client, { namespace: 'default', name: 'hello' });
 * expect(client.writes()).toStrictEqual([]);
 * ```
 */
export class FakeClient implements ObjectClient {
  readonly fieldManager: string;
  readonly #objects = new Map<string, Map<string, KubeObject>>();
  readonly #indexes = new Map<string, Map<string, IndexFunc<KubeObject>>>();
  readonly #statusKinds: ReadonlySet<string>;
  readonly #interceptors: Interceptors;
  readonly #now: () => Date;
  readonly #actions: Action[] = [];
  readonly #counts = new Map<Verb, number>();
  #resourceVersion = 0;

  constructor(options: FakeClientOptions = {}) {
    this.fieldManager = options.fieldManager ?? 'fake-client';
    this.#statusKinds = new Set([
      ...BUILT_IN_STATUS_SUBRESOURCE,
      ...(options.statusSubresource ?? []).map(groupKind),
    ]);
    this.#interceptors = options.interceptors ?? {};
    this.#now = options.now ?? (() => new Date());
    this.add(...(options.objects ?? []));
  }

  /** Every call made so far (since the last `reset`), in order, including calls that failed. */
  get actions(): readonly Action[] {
    return [...this.#actions];
  }

  /** The calls that write: create, update, updateStatus, patch, apply and delete (even no-op or failed ones). */
  writes(): Action[] {
    return this.#actions.filter((a) => WRITE_VERBS.has(a.verb));
  }

  /** Clears the action log (not the objects), e.g. between two reconciles. */
  reset(): void {
    this.#actions.length = 0;
  }

  /**
   * Stores objects as they are, without recording an action or calling interceptors: to set up a test or
   * change the world between reconciles. Missing uid, resourceVersion, `generation` and creationTimestamp
   * are filled in; status is kept whatever the kind.
   *
   * @throws ApiError 409 AlreadyExists when an object exists.
   */
  add(...objects: KubeObject[]): void {
    for (const input of objects) {
      const type = typeOf(input);
      const obj = structuredClone(input);
      const meta = obj.metadata;
      if (!meta?.name) throw new TypeError(`a ${type.kind} to add needs metadata.name`);
      if (meta.deletionTimestamp && !meta.finalizers?.length) {
        throw new TypeError(
          `${type.kind} "${meta.name}" has a deletionTimestamp but no finalizers: it would be gone`,
        );
      }
      const bucket = this.#bucket(type);
      if (bucket.has(objectKey(obj))) throw this.#alreadyExists('create', type, meta.name, meta.namespace);
      meta.uid ??= randomUUID();
      meta.creationTimestamp ??= this.#timestamp();
      meta.generation ??= 1;
      const rv = Number(meta.resourceVersion);
      if (meta.resourceVersion && Number.isSafeInteger(rv))
        this.#resourceVersion = Math.max(this.#resourceVersion, rv);
      else meta.resourceVersion = this.#nextResourceVersion();
      bucket.set(objectKey(obj), obj);
    }
  }

  /**
   * Registers an index for `list(type, { matchingFields: { [name]: value } })`, like the cache's
   * `indexField`. `metadata.namespace` and `metadata.ownerReferences.uid` (OWNER_UID_INDEX) are built in.
   */
  indexField<T extends KubeObject>(type: Kind<T>, name: string, fn: IndexFunc<Stored<T>>): void {
    let indexes = this.#indexes.get(typeKey(type));
    if (!indexes) {
      indexes = new Map();
      this.#indexes.set(typeKey(type), indexes);
    }
    if (indexes.has(name)) throw new Error(`index "${name}" already exists for ${typeKey(type)}`);
    indexes.set(name, fn as IndexFunc<KubeObject>);
  }

  get<T extends KubeObject>(type: Kind<T>, name: string, namespace?: string): Promise<Stored<T>> {
    return this.#call('get', { type, name, namespace }, actionOf('get', type, namespace, name), () =>
      // Frozen, like the cache's objects, so a reconciler that changes what it read fails here too.
      deepFreeze(structuredClone(this.#require('get', type, name, namespace))),
    ) as Promise<Stored<T>>;
  }

  list<T extends KubeObject>(type: Kind<T>, options: ListOptions = {}): Promise<ObjectList<Stored<T>>> {
    return this.#call('list', { type, options }, actionOf('list', type, options.namespace, undefined), () =>
      this.#list(type, options),
    ) as Promise<ObjectList<Stored<T>>>;
  }

  create<T extends KubeObject>(obj: T, options: WriteOptions = {}): Promise<Stored<T>> {
    return this.#call('create', { obj, options }, this.#actionFor('create', obj), () =>
      this.#create(obj, options.dryRun ?? false),
    ) as Promise<Stored<T>>;
  }

  /** Replaces the object; status is kept from the stored object for kinds with a status subresource. */
  update<T extends KubeObject>(obj: T, options: WriteOptions = {}): Promise<Stored<T>> {
    return this.#call('update', { obj, options }, this.#actionFor('update', obj), () =>
      this.#replace('update', obj, 'object', options.dryRun ?? false),
    ) as Promise<Stored<T>>;
  }

  /** Replaces the status only; 404 for kinds without a status subresource. */
  updateStatus<T extends KubeObject>(obj: T, options: WriteOptions = {}): Promise<Stored<T>> {
    return this.#call('updateStatus', { obj, options }, this.#actionFor('updateStatus', obj), () =>
      this.#replace('updateStatus', obj, 'status', options.dryRun ?? false),
    ) as Promise<Stored<T>>;
  }

  /**
   * `merge`: RFC 7386 JSON merge patch (`null` deletes a field); `json`: RFC 6902 JSON patch (add, remove,
   * replace, move, copy, test). `strategic` is not supported. With `{ subresource: 'status' }` only the
   * patched status is kept.
   */
  patch<T extends KubeObject>(
    target: ObjectRef<T>,
    patch: unknown,
    type: PatchType = 'merge',
    options: PatchOptions = {},
  ): Promise<Stored<T>> {
    return this.#call(
      'patch',
      { target, patch, patchType: type, options },
      actionOf('patch', target, target.namespace, target.name),
      () => this.#patch(target, patch, type, options),
    ) as Promise<Stored<T>>;
  }

  /**
   * A simplified server-side apply: creates the object when missing, otherwise merges the given fields into
   * it (objects merge recursively, arrays replace). There is no field ownership, so `force` is ignored and
   * fields left out of a later apply are not removed.
   */
  apply<T extends KubeObject>(obj: T, options: ApplyOptions = {}): Promise<Stored<T>> {
    const filled: ApplyOptions = { fieldManager: this.fieldManager, force: true, ...options };
    return this.#call('apply', { obj, options: filled }, this.#actionFor('apply', obj), () =>
      this.#apply(obj, filled),
    ) as Promise<Stored<T>>;
  }

  /**
   * Deletes the object, or only marks it for deletion (`deletionTimestamp`) while it has finalizers. Does NOT
   * garbage-collect dependents: objects owned by it stay.
   */
  delete(target: ObjectRef, options: DeleteOptions = {}): Promise<void> {
    return this.#call(
      'delete',
      { target, options },
      actionOf('delete', target, target.namespace, target.name),
      () => {
        this.#delete(target, options);
        return undefined;
      },
    );
  }

  // --- calls -------------------------------------------------------------------------------------------------

  async #call<V extends Verb>(
    verb: V,
    args: CallArgs[V],
    action: Action,
    run: () => CallResults[V],
  ): Promise<CallResults[V]> {
    this.#actions.push(action);
    const count = (this.#counts.get(verb) ?? 0) + 1;
    this.#counts.set(verb, count);
    const interceptor: Interceptor<V> | undefined = this.#interceptors[verb];
    const intercepted = interceptor?.({ ...args, verb, count, action, next: async () => run() });
    return intercepted ?? run();
  }

  #actionFor(verb: Verb, obj: KubeObject): Action {
    return actionOf(
      verb,
      { apiVersion: obj.apiVersion ?? '', kind: obj.kind ?? '' },
      obj.metadata?.namespace,
      obj.metadata?.name,
    );
  }

  #bucket(type: Kind): Map<string, KubeObject> {
    let bucket = this.#objects.get(typeKey(type));
    if (!bucket) {
      bucket = new Map();
      this.#objects.set(typeKey(type), bucket);
    }
    return bucket;
  }

  #timestamp(): string {
    return this.#now()
      .toISOString()
      .replace(/\.\d+Z$/, 'Z');
  }

  #nextResourceVersion(): string {
    return String(++this.#resourceVersion);
  }

  #hasStatusSubresource(type: Kind): boolean {
    return this.#statusKinds.has(groupKind(type));
  }

  // --- errors ------------------------------------------------------------------------------------------------

  #error(
    status: number,
    reason: string,
    message: string,
    verb: Verb,
    type: Kind,
    name?: string,
    namespace?: string,
  ) {
    const path = `fake:${typeKey(type)}${namespace ? `/${namespace}` : ''}${name ? `/${name}` : ''}`;
    return new ApiError(status, reason, message, METHODS[verb], path);
  }

  #notFound(verb: Verb, type: Kind, name: string, namespace?: string): ApiError {
    return this.#error(404, 'NotFound', `${type.kind} "${name}" not found`, verb, type, name, namespace);
  }

  #alreadyExists(verb: Verb, type: Kind, name: string, namespace?: string): ApiError {
    return this.#error(
      409,
      'AlreadyExists',
      `${type.kind} "${name}" already exists`,
      verb,
      type,
      name,
      namespace,
    );
  }

  #conflict(verb: Verb, type: Kind, name: string, namespace: string | undefined, why: string): ApiError {
    const message = `Operation cannot be fulfilled on ${type.kind} "${name}": ${why}`;
    return this.#error(409, 'Conflict', message, verb, type, name, namespace);
  }

  #invalid(verb: Verb, type: Kind, name: string | undefined, namespace: string | undefined, why: string) {
    return this.#error(
      422,
      'Invalid',
      `${type.kind} "${name ?? ''}" is invalid: ${why}`,
      verb,
      type,
      name,
      namespace,
    );
  }

  #require(verb: Verb, type: Kind, name: string | undefined, namespace?: string): KubeObject {
    if (!name) throw this.#invalid(verb, type, name, namespace, 'metadata.name: Required value');
    const found = this.#objects.get(typeKey(type))?.get(keyOf(name, namespace));
    if (!found) throw this.#notFound(verb, type, name, namespace);
    return found;
  }

  #requireStatusSubresource(verb: Verb, type: Kind, name: string, namespace?: string): void {
    if (this.#hasStatusSubresource(type)) return;
    throw this.#error(
      404,
      'NotFound',
      `${type.kind} has no status subresource (list it in FakeClient's statusSubresource option if its CRD has one)`,
      verb,
      type,
      name,
      namespace,
    );
  }

  // --- reads -------------------------------------------------------------------------------------------------

  #indexFunc(type: Kind, name: string): IndexFunc<KubeObject> {
    const custom = this.#indexes.get(typeKey(type))?.get(name);
    if (custom) return custom;
    if (name === 'metadata.namespace') return (o) => (o.metadata.namespace ? [o.metadata.namespace] : []);
    if (name === OWNER_UID_INDEX) return (o) => (o.metadata.ownerReferences ?? []).map((r) => r.uid);
    throw new Error(`no index "${name}" for ${typeKey(type)}: register it with indexField`);
  }

  #list(type: Kind, options: ListOptions): ObjectList<KubeObject> {
    if (options.fieldSelector) {
      throw new Error(
        'FakeClient does not support fieldSelector: the cached Client ignores it. Register an index with ' +
          'indexField and list with matchingFields instead.',
      );
    }
    let items = [...(this.#objects.get(typeKey(type))?.values() ?? [])];
    if (options.namespace) items = items.filter((o) => o.metadata.namespace === options.namespace);
    if (options.labelSelector) {
      const selector = parseLabelSelector(options.labelSelector);
      items = items.filter((o) => selector.matches(o.metadata.labels));
    }
    for (const [field, value] of Object.entries(options.matchingFields ?? {})) {
      const fn = this.#indexFunc(type, field);
      items = items.filter((o) => fn(o).includes(value));
    }
    items.sort((a, b) => (objectKey(a) < objectKey(b) ? -1 : objectKey(a) > objectKey(b) ? 1 : 0));
    return {
      apiVersion: type.apiVersion,
      kind: `${type.kind}List`,
      metadata: { resourceVersion: String(this.#resourceVersion) },
      items: items.map((o) => deepFreeze(structuredClone(o))),
    };
  }

  // --- writes ------------------------------------------------------------------------------------------------

  #create(input: KubeObject, dryRun: boolean, verb: Verb = 'create'): KubeObject {
    const type = typeOf(input);
    const obj = structuredClone(input);
    obj.metadata = { ...obj.metadata };
    const meta = obj.metadata;
    const bucket = this.#bucket(type);
    if (meta.resourceVersion) {
      throw this.#error(
        500,
        'InternalError',
        'resourceVersion should not be set on objects to be created',
        verb,
        type,
        meta.name,
        meta.namespace,
      );
    }
    if (!meta.name) {
      if (!meta.generateName) {
        throw this.#invalid(
          verb,
          type,
          '',
          meta.namespace,
          'metadata.name: Required value: name or generateName is required',
        );
      }
      do {
        let suffix = '';
        for (let i = 0; i < 5; i++)
          suffix += GENERATED_NAME_CHARS[Math.floor(Math.random() * GENERATED_NAME_CHARS.length)];
        meta.name = `${meta.generateName}${suffix}`;
      } while (bucket.has(objectKey(obj)));
    }
    if (bucket.has(objectKey(obj))) throw this.#alreadyExists(verb, type, meta.name, meta.namespace);
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    meta.uid = randomUUID();
    meta.generation = 1;
    meta.creationTimestamp = this.#timestamp();
    if (this.#hasStatusSubresource(type)) withStatus(obj, undefined);
    if (dryRun) return obj;
    meta.resourceVersion = this.#nextResourceVersion();
    bucket.set(objectKey(obj), obj);
    return structuredClone(obj);
  }

  #replace(verb: 'update' | 'updateStatus', input: KubeObject, scope: 'object' | 'status', dryRun: boolean) {
    const type = typeOf(input);
    const { name, namespace } = input.metadata ?? {};
    const stored = this.#require(verb, type, name, namespace);
    if (scope === 'status') this.#requireStatusSubresource(verb, type, name!, namespace);
    return this.#commit(verb, type, stored, structuredClone(input), scope, dryRun);
  }

  #patch(target: ObjectRef, patch: unknown, type: PatchType, options: PatchOptions): KubeObject {
    const stored = this.#require('patch', target, target.name, target.namespace);
    const scope = options.subresource === 'status' ? 'status' : 'object';
    if (scope === 'status') this.#requireStatusSubresource('patch', target, target.name, target.namespace);
    let patched: unknown;
    try {
      switch (type) {
        case 'merge':
          if (!isPlainObject(patch))
            throw new PatchError(400, 'merge patch: the patch must be a JSON object');
          patched = mergePatch(stored, patch);
          break;
        case 'json':
          patched = jsonPatch(stored, patch);
          break;
        case 'strategic':
          throw new Error(
            "strategic merge patch is not supported by FakeClient: use a 'merge' (RFC 7386) or 'json' (RFC 6902) patch",
          );
      }
    } catch (error) {
      if (!(error instanceof PatchError)) throw error;
      const reason = error.status === 400 ? 'BadRequest' : 'Invalid';
      throw this.#error(error.status, reason, error.message, 'patch', target, target.name, target.namespace);
    }
    if (!isPlainObject(patched) || !isPlainObject(patched.metadata)) {
      throw this.#invalid(
        'patch',
        target,
        target.name,
        target.namespace,
        'the patched object has no metadata',
      );
    }
    return this.#commit('patch', target, stored, patched as Doc, scope, options.dryRun ?? false);
  }

  #apply(input: KubeObject, options: ApplyOptions): KubeObject {
    const type = typeOf(input);
    const { name, namespace } = input.metadata ?? {};
    if (!name) throw this.#invalid('apply', type, name, namespace, 'metadata.name: Required value');
    const stored = this.#objects.get(typeKey(type))?.get(keyOf(name, namespace));
    if (options.subresource === 'status') {
      if (!stored) throw this.#notFound('apply', type, name, namespace);
      this.#requireStatusSubresource('apply', type, name, namespace);
      const config = {
        metadata: { resourceVersion: input.metadata.resourceVersion },
        status: statusOf(input),
      };
      return this.#commit('apply', type, stored, applyMerge(stored, config) as Doc, 'status', false);
    }
    if (!stored) {
      const { resourceVersion: _rv, uid: _uid, ...metadata } = input.metadata;
      return this.#create({ ...input, metadata }, false, 'apply');
    }
    return this.#commit('apply', type, stored, applyMerge(stored, input) as Doc, 'object', false);
  }

  #delete(target: ObjectRef, options: DeleteOptions): void {
    const stored = this.#require('delete', target, target.name, target.namespace);
    const { uid, resourceVersion } = options.preconditions ?? {};
    if (uid && uid !== stored.metadata.uid) {
      const why = `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${stored.metadata.uid}`;
      throw this.#conflict('delete', target, target.name, target.namespace, why);
    }
    if (resourceVersion && resourceVersion !== stored.metadata.resourceVersion) {
      const why = `Precondition failed: ResourceVersion in precondition: ${resourceVersion}, ResourceVersion in object meta: ${stored.metadata.resourceVersion}`;
      throw this.#conflict('delete', target, target.name, target.namespace, why);
    }
    const bucket = this.#bucket(target);
    if (!stored.metadata.finalizers?.length) {
      bucket.delete(objectKey(stored));
      return;
    }
    if (stored.metadata.deletionTimestamp) return;
    const marked = structuredClone(stored);
    marked.metadata.deletionTimestamp = this.#timestamp();
    marked.metadata.deletionGracePeriodSeconds = 0;
    if (marked.metadata.generation) marked.metadata.generation += 1;
    marked.metadata.resourceVersion = this.#nextResourceVersion();
    bucket.set(objectKey(marked), marked);
  }

  /**
   * Writes `proposed` over `stored` as the API server does: checks the resourceVersion and uid preconditions,
   * keeps what clients cannot change, writes nothing when nothing changed, bumps generation and
   * resourceVersion, and removes an object being deleted once its last finalizer is gone.
   */
  #commit(
    verb: Verb,
    type: Kind,
    stored: KubeObject,
    proposed: KubeObject,
    scope: 'object' | 'status',
    dryRun: boolean,
  ): KubeObject {
    const { name = '', namespace } = stored.metadata;
    const wanted = proposed.metadata?.resourceVersion;
    if (wanted && wanted !== stored.metadata.resourceVersion) {
      const why =
        'the object has been modified; please apply your changes to the latest version and try again';
      throw this.#conflict(verb, type, name, namespace, why);
    }
    if (proposed.metadata?.uid && proposed.metadata.uid !== stored.metadata.uid) {
      const why = `Precondition failed: UID in precondition: ${proposed.metadata.uid}, UID in object meta: ${stored.metadata.uid}`;
      throw this.#conflict(verb, type, name, namespace, why);
    }

    let next: KubeObject;
    if (scope === 'status') {
      next = structuredClone(stored);
      withStatus(next, structuredClone(statusOf(proposed)));
    } else {
      next = proposed;
      next.apiVersion = stored.apiVersion;
      next.kind = stored.kind;
      next.metadata = withServerOwned(proposed.metadata, stored.metadata);
      if (this.#hasStatusSubresource(type)) withStatus(next, structuredClone(statusOf(stored)));
      if (stored.metadata.deletionTimestamp) {
        const before = new Set(stored.metadata.finalizers ?? []);
        const added = (next.metadata.finalizers ?? []).filter((f) => !before.has(f));
        if (added.length > 0) {
          const why = `metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`;
          throw this.#invalid(verb, type, name, namespace, why);
        }
      }
    }
    next.metadata.resourceVersion = stored.metadata.resourceVersion;
    if (deepEqual(next, stored)) return structuredClone(stored);
    if (!deepEqual(content(next), content(stored)))
      next.metadata.generation = (stored.metadata.generation ?? 0) + 1;
    if (dryRun) return structuredClone(next);

    next.metadata.resourceVersion = this.#nextResourceVersion();
    const bucket = this.#bucket(type);
    if (next.metadata.deletionTimestamp && !next.metadata.finalizers?.length)
      bucket.delete(objectKey(stored));
    else bucket.set(objectKey(stored), next);
    return structuredClone(next);
  }
}
