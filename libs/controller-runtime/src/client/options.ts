import type { Kind, KubeObject, Stored } from '../object.js';

// What the clients take and give: the one declaration of their option types, and the reader they share.

/** One object of a kind: `{ ...CONFIG_MAP, namespace: 'default', name: 'settings' }`. */
export type ObjectRef<T extends KubeObject = KubeObject> = Kind<T> & { name: string; namespace?: string };

export interface ListOptions {
  /** Undefined: all namespaces (or cluster-scoped). */
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /**
   * Exact field values, as controller-runtime's `MatchingFields`: the informer cache looks them up in its
   * registered indexes; the API server gets them as a field selector, so there only fields it can select on
   * (`metadata.name`, `metadata.namespace`, a kind's selectable fields) work, others fail with 400.
   */
  readonly matchingFields?: Readonly<Record<string, string>>;
  readonly limit?: number;
  readonly continue?: string;
  readonly resourceVersion?: string;
}

export interface ObjectList<T> {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: { resourceVersion?: string; continue?: string };
  readonly items: T[];
}

export interface WriteOptions {
  /** Field manager recorded in managedFields. */
  readonly fieldManager?: string;
  readonly dryRun?: boolean;
}

/** Options of `patch`: write options, and `subresource: 'status'` to patch the status subresource. */
export interface PatchOptions extends WriteOptions {
  readonly subresource?: 'status';
}

export interface ApplyOptions {
  /**
   * Who owns the fields in this configuration; server-side apply needs one.
   * @default the client's own field manager
   */
  readonly fieldManager?: string;
  /**
   * Take over fields other managers own.
   * @default true (controllers own what they apply)
   */
  readonly force?: boolean;
  /** `'status'` applies to the status subresource. */
  readonly subresource?: 'status';
}

export interface DeleteOptions {
  readonly propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  readonly gracePeriodSeconds?: number;
  readonly preconditions?: { uid?: string; resourceVersion?: string };
}

export type PatchType = 'merge' | 'json' | 'strategic';

/** Reads objects; implemented by the API server directly, by the informer cache and by every client. */
export interface Reader {
  get<T extends KubeObject>(type: Kind<T>, name: string, namespace?: string): Promise<Stored<T>>;
  list<T extends KubeObject>(type: Kind<T>, options?: ListOptions): Promise<ObjectList<Stored<T>>>;
}
