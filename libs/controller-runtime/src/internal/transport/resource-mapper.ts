import { isNotFound, recogniseByBrand } from '../../errors/errors.js';
import { apiVersionOf, type GroupVersionKind } from '../../object.js';
import { type RetryTransientOptions, retryTransient } from '../retry/transient-retry.js';
import type { Transport } from './transport.js';

/** Where a kind lives in the REST API. */
export interface ResourceMapping {
  readonly gvk: GroupVersionKind;
  /** Plural resource name, e.g. `deployments`. */
  readonly resource: string;
  readonly namespaced: boolean;
}

const NO_KIND_MATCH = Symbol.for('@opkit/controller-runtime/NoKindMatchError');

/** A kind the server does not serve (yet): for a CRD, not installed or not established. */
export class NoKindMatchError extends Error {
  readonly [NO_KIND_MATCH] = true;
  readonly code = 'KUBE_NO_KIND_MATCH';
  constructor(readonly gvk: GroupVersionKind) {
    super(`no matches for kind "${gvk.kind}" in version "${apiVersionOf(gvk)}"`);
    this.name = 'NoKindMatchError';
  }
}
recogniseByBrand(NoKindMatchError, NO_KIND_MATCH);

interface ApiResourceList {
  resources: { name: string; kind: string; namespaced: boolean }[];
}

/**
 * Maps kinds to REST paths through discovery, one group-version at a time and cached; an unknown kind triggers
 * one fresh discovery of its group-version, so CRDs installed after start-up are found. With `retry` giving
 * options (the manager's clients while it runs), a discovery that fails transiently — the API server starting,
 * overloaded or restarting — is tried again with back-off instead of failing the call.
 */
export class ResourceMapper {
  readonly #transport: Transport;
  readonly #retry: () => RetryTransientOptions | undefined;
  readonly #groups = new Map<string, Promise<Map<string, ResourceMapping>>>();

  constructor(transport: Transport, retry: () => RetryTransientOptions | undefined = () => undefined) {
    this.#transport = transport;
    this.#retry = retry;
  }

  #discover(apiVersion: string): Promise<Map<string, ResourceMapping>> {
    const path = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    const loading = this.#transport
      .request<ApiResourceList>({ method: 'GET', path })
      .then((list) => {
        const byKind = new Map<string, ResourceMapping>();
        for (const r of list.resources) {
          if (r.name.includes('/')) continue; // subresources such as deployments/status
          const slash = apiVersion.indexOf('/');
          const gvk = {
            group: slash < 0 ? '' : apiVersion.slice(0, slash),
            version: slash < 0 ? apiVersion : apiVersion.slice(slash + 1),
            kind: r.kind,
          };
          byKind.set(r.kind, { gvk, resource: r.name, namespaced: r.namespaced });
        }
        return byKind;
      })
      .catch((error) => {
        this.#groups.delete(apiVersion);
        if (isNotFound(error)) return new Map<string, ResourceMapping>();
        throw error;
      });
    this.#groups.set(apiVersion, loading);
    return loading;
  }

  async mapping(apiVersion: string, kind: string): Promise<ResourceMapping> {
    const retry = this.#retry();
    if (!retry) return this.#mapping(apiVersion, kind);
    return retryTransient(
      `discovery of ${kind} (${apiVersion})`,
      () => this.#mapping(apiVersion, kind),
      retry,
    );
  }

  async #mapping(apiVersion: string, kind: string): Promise<ResourceMapping> {
    let group = await (this.#groups.get(apiVersion) ?? this.#discover(apiVersion));
    let found = group.get(kind);
    if (!found) {
      group = await this.#discover(apiVersion);
      found = group.get(kind);
    }
    if (!found) {
      const slash = apiVersion.indexOf('/');
      throw new NoKindMatchError({
        group: slash < 0 ? '' : apiVersion.slice(0, slash),
        version: slash < 0 ? apiVersion : apiVersion.slice(slash + 1),
        kind,
      });
    }
    return found;
  }

  /** REST path of a collection (`namespace` undefined: all namespaces) or of one object. */
  async path(apiVersion: string, kind: string, namespace?: string, name?: string): Promise<string> {
    const m = await this.mapping(apiVersion, kind);
    const prefix = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    const ns = m.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
    return `${prefix}${ns}/${m.resource}${name ? `/${encodeURIComponent(name)}` : ''}`;
  }
}
