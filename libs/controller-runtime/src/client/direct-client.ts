import type { IncomingMessage } from 'node:http';
import { isConflict } from '../errors/errors.js';
import type { RetryTransientOptions } from '../internal/retry/transient-retry.js';
import type { ClusterConnection } from '../internal/transport/kubeconfig.js';
import { ResourceMapper, type ResourceMapping } from '../internal/transport/resource-mapper.js';
import { type Query, Transport } from '../internal/transport/transport.js';
import type { RuntimeMetrics } from '../metrics/runtime-metrics.js';
import type { Kind, KubeObject, Stored } from '../object.js';
import type { ObjectClient } from './object-client.js';
import type {
  ApplyOptions,
  DeleteOptions,
  ListOptions,
  ObjectList,
  ObjectRef,
  PatchOptions,
  PatchType,
  WriteOptions,
} from './options.js';

/**
 * A typed client for any kind, straight to the API server: reads, writes, status subresource, JSON merge
 * patch and server-side apply. Custom resources get merge patches or apply, never the strategic merge
 * default that CRDs reject. Without a field manager of its own, the server names the manager of a write
 * after the client's user agent, and `apply` needs one in its options.
 */
export interface DirectClient extends ObjectClient {
  readonly fieldManager: string | undefined;
  /**
   * Where the server serves a kind, found through discovery (and looked up again for a kind it did not
   * serve yet); fails with `NoKindMatchError` when it serves none.
   */
  mapping(apiVersion: string, kind: string): Promise<ResourceMapping>;
  /** Streams a watch; the caller consumes the newline-delimited JSON events. */
  watch(type: Kind, query: Query & { namespace?: string }, signal: AbortSignal): Promise<IncomingMessage>;
  /** Drops the kept-alive connections. */
  close(): Promise<void>;
}

export interface DirectClientOptions {
  /** The field manager of writes whose options name none. */
  readonly fieldManager?: string;
  /** Where every request is counted (`rest_client_requests_total`). */
  readonly metrics?: RuntimeMetrics;
  /** How long one request (not a watch) may take; 60 s unless given. */
  readonly requestTimeoutMs?: number;
}

/** A direct client of the cluster a kubeconfig's current context names. */
export function directClient(connection: ClusterConnection, options: DirectClientOptions = {}): DirectClient {
  const transport = new Transport(connection, options.metrics, {
    requestTimeoutMs: options.requestTimeoutMs,
  });
  return new RestClient(transport, options);
}

/** What the runtime's own direct clients take besides a field manager. */
interface InternalClientOptions {
  readonly fieldManager?: string;
  /** How discovery retries transient failures now; undefined: it does not (see ResourceMapper). */
  readonly discoveryRetry?: () => RetryTransientOptions | undefined;
}

/** A direct client over a transport of the runtime's own (the manager's, which fences writes). */
export function directClientOn(transport: Transport, options: InternalClientOptions = {}): DirectClient {
  return new RestClient(transport, options);
}

const PATCH_CONTENT_TYPES: Record<PatchType | 'apply', string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

function typeOf(obj: KubeObject): Kind {
  if (!obj.apiVersion || !obj.kind) {
    throw new TypeError(
      `object ${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''} has no apiVersion/kind`,
    );
  }
  return { apiVersion: obj.apiVersion, kind: obj.kind };
}

/** The field selector a list sends: `fieldSelector` and `matchingFields` together. */
function fieldSelectorOf(options: ListOptions): string | undefined {
  const terms = Object.entries(options.matchingFields ?? {}).map(
    ([field, value]) => `${field}=${escapeFieldValue(value)}`,
  );
  if (options.fieldSelector) terms.unshift(options.fieldSelector);
  return terms.length > 0 ? terms.join(',') : undefined;
}

/** Escapes what a field selector value cannot hold as is, as apimachinery's `fields.EscapeValue` does. */
function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/** The direct client: a kind's REST path through discovery, each call one request on the transport. */
class RestClient implements DirectClient {
  readonly #transport: Transport;
  readonly #mapper: ResourceMapper;
  readonly fieldManager: string | undefined;

  constructor(transport: Transport, options: InternalClientOptions) {
    this.#transport = transport;
    this.#mapper = new ResourceMapper(transport, options.discoveryRetry);
    this.fieldManager = options.fieldManager;
  }

  mapping(apiVersion: string, kind: string): Promise<ResourceMapping> {
    return this.#mapper.mapping(apiVersion, kind);
  }

  close(): Promise<void> {
    return this.#transport.close();
  }

  async get<T extends KubeObject>(type: Kind<T>, name: string, namespace?: string): Promise<Stored<T>> {
    const path = await this.#mapper.path(type.apiVersion, type.kind, namespace, name);
    return this.#transport.request<Stored<T>>({ method: 'GET', path });
  }

  async list<T extends KubeObject>(type: Kind<T>, options: ListOptions = {}): Promise<ObjectList<Stored<T>>> {
    const path = await this.#mapper.path(type.apiVersion, type.kind, options.namespace);
    const list = await this.#transport.request<ObjectList<Stored<T>>>({
      method: 'GET',
      path,
      query: {
        labelSelector: options.labelSelector,
        fieldSelector: fieldSelectorOf(options),
        limit: options.limit,
        continue: options.continue,
        resourceVersion: options.resourceVersion,
      },
    });
    // Items of a list carry no apiVersion/kind; fill them in so they can be written back as they are.
    for (const item of list.items) {
      item.apiVersion ??= type.apiVersion;
      item.kind ??= type.kind;
    }
    return list;
  }

  async watch(
    type: Kind,
    query: Query & { namespace?: string },
    signal: AbortSignal,
  ): Promise<IncomingMessage> {
    const { namespace, ...rest } = query;
    const path = await this.#mapper.path(type.apiVersion, type.kind, namespace as string | undefined);
    return this.#transport.open({
      method: 'GET',
      path,
      query: { ...rest, watch: true },
      signal,
      timeoutMs: 0,
    });
  }

  #writeQuery(options: WriteOptions = {}): Query {
    return {
      fieldManager: options.fieldManager ?? this.fieldManager,
      dryRun: options.dryRun ? 'All' : undefined,
    };
  }

  async create<T extends KubeObject>(obj: T, options?: WriteOptions): Promise<Stored<T>> {
    const { apiVersion, kind } = typeOf(obj);
    const path = await this.#mapper.path(apiVersion, kind, obj.metadata.namespace);
    return this.#transport.request<Stored<T>>({
      method: 'POST',
      path,
      body: obj,
      query: this.#writeQuery(options),
    });
  }

  /** Replaces the object; fails with 409 Conflict when its resourceVersion is stale. */
  async update<T extends KubeObject>(obj: T, options?: WriteOptions): Promise<Stored<T>> {
    const { apiVersion, kind } = typeOf(obj);
    const path = await this.#mapper.path(apiVersion, kind, obj.metadata.namespace, obj.metadata.name);
    return this.#transport.request<Stored<T>>({
      method: 'PUT',
      path,
      body: obj,
      query: this.#writeQuery(options),
    });
  }

  /** Replaces the status subresource. */
  async updateStatus<T extends KubeObject>(obj: T, options?: WriteOptions): Promise<Stored<T>> {
    const { apiVersion, kind } = typeOf(obj);
    const path = await this.#mapper.path(apiVersion, kind, obj.metadata.namespace, obj.metadata.name);
    return this.#transport.request<Stored<T>>({
      method: 'PUT',
      path: `${path}/status`,
      body: obj,
      query: this.#writeQuery(options),
    });
  }

  async patch<T extends KubeObject>(
    target: ObjectRef<T>,
    patch: unknown,
    type: PatchType = 'merge',
    options: PatchOptions = {},
  ): Promise<Stored<T>> {
    const path = await this.#mapper.path(target.apiVersion, target.kind, target.namespace, target.name);
    return this.#transport.request<Stored<T>>({
      method: 'PATCH',
      path: options.subresource ? `${path}/${options.subresource}` : path,
      body: patch,
      contentType: PATCH_CONTENT_TYPES[type],
      query: this.#writeQuery(options),
    });
  }

  /**
   * Server-side apply: the server merges `obj` (the fields this manager wants to own) into the live object,
   * creating it if needed. Applying an unchanged configuration is a no-op on the server. Fails before any
   * request when neither the options nor the client name a field manager, as the server would refuse it.
   */
  async apply<T extends KubeObject>(obj: T, options: ApplyOptions = {}): Promise<Stored<T>> {
    const fieldManager = options.fieldManager ?? this.fieldManager;
    if (!fieldManager) {
      throw new TypeError(
        'server-side apply needs a field manager: pass fieldManager in the options or to the client',
      );
    }
    const { apiVersion, kind } = typeOf(obj);
    const path = await this.#mapper.path(apiVersion, kind, obj.metadata.namespace, obj.metadata.name);
    return this.#transport.request<Stored<T>>({
      method: 'PATCH',
      path: options.subresource ? `${path}/${options.subresource}` : path,
      // JSON is YAML, so the apply body can be sent as JSON with the apply content type.
      body: obj,
      contentType: PATCH_CONTENT_TYPES.apply,
      query: { fieldManager, force: options.force ?? true },
    });
  }

  async delete(target: ObjectRef, options: DeleteOptions = {}): Promise<void> {
    const path = await this.#mapper.path(target.apiVersion, target.kind, target.namespace, target.name);
    await this.#transport.request({
      method: 'DELETE',
      path,
      body: { apiVersion: 'v1', kind: 'DeleteOptions', ...options },
    });
  }
}

/**
 * Runs `attempt` (which should read the latest object, change it and write it) again when it fails with 409
 * Conflict, with a short growing pause: client-go's RetryOnConflict.
 */
export async function retryOnConflict<T>(
  attempt: () => Promise<T>,
  { retries = 5, delayMs = 10 } = {},
): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await attempt();
    } catch (error) {
      if (!isConflict(error) || i >= retries) throw error;
      await new Promise((resolve) => setTimeout(resolve, delayMs * 2 ** i));
    }
  }
}
