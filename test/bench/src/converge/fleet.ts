import type { KubeRest } from '@opkit/test-cluster';

// The benchmark's own client: creates, resizes and deletes the Memcached fleet as a user would, all at once.

/**
 * The API a fleet is written in, as each operator's users write it: the kubebuilder guide's operator speaks
 * v1alpha1 (`size`), ours stores and reconciles v1beta1 (`replicas`). The benchmark's CRD serves both without
 * conversion, so neither run pays for a conversion webhook the other does not have; before each run the
 * fleet's version becomes the storage version ({@link storeFleetVersion}).
 */
export interface FleetApi {
  readonly version: 'v1alpha1' | 'v1beta1';
  /** The spec field holding the number of servers. */
  readonly sizeField: 'size' | 'replicas';
}
export const GUIDE_API: FleetApi = { version: 'v1alpha1', sizeField: 'size' };
export const OPKIT_API: FleetApi = { version: 'v1beta1', sizeField: 'replicas' };

export const MEMCACHEDS = (namespace: string, api: FleetApi = GUIDE_API) =>
  `/apis/cache.example.com/${api.version}/namespaces/${namespace}/memcacheds`;

/** The spec of a Memcached with `size` servers on port 11211, in `api`'s shape. */
const specOf = (api: FleetApi, size: number) =>
  api.sizeField === 'size'
    ? { size, containerPort: 11211 }
    : { replicas: size, port: { containerPort: 11211 } };
export const DEPLOYMENTS = (namespace: string) => `/apis/apps/v1/namespaces/${namespace}/deployments`;

/**
 * Requests in flight from the benchmark's client. 16 is the client's connection limit; the apiserver's
 * default in-flight limits (400 reads, 200 writes) are far above it, so the apiserver's own work is the bound.
 */
export const CLIENT_CONCURRENCY = 16;

/** Runs `work` for every item with at most `concurrency` in flight; rejects with the first failure. */
export async function inPool<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

export function memcachedNames(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `mc-${String(i).padStart(5, '0')}`);
}

const CRD = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/memcacheds.cache.example.com';

interface MemcachedCrd {
  readonly spec: { readonly versions: { readonly name: string; storage: boolean }[] };
  readonly status?: { readonly storedVersions?: readonly string[] };
}

/**
 * Makes the fleet's API version the storage version. Without conversion the API server stores an object as
 * written, pruned by the storage version's schema: v1alpha1's `size` written into v1beta1 storage would be
 * dropped, and the guide's controller would read (and write back) a Memcached without a size.
 */
export async function storeFleetVersion(rest: KubeRest, api: FleetApi): Promise<void> {
  const crd = await rest.request<MemcachedCrd>('GET', CRD);
  if (crd.spec.versions.find((v) => v.storage)?.name === api.version) return;
  for (const version of crd.spec.versions) version.storage = version.name === api.version;
  await rest.request('PUT', CRD, { body: crd });
  // The API server adds the new storage version to storedVersions once it writes with it.
  const deadline = Date.now() + 30_000;
  for (;;) {
    const live = await rest.request<MemcachedCrd>('GET', CRD);
    if (live.status?.storedVersions?.includes(api.version)) break;
    if (Date.now() > deadline) throw new Error(`the Memcached CRD does not store ${api.version} after 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export async function createNamespace(rest: KubeRest, name: string): Promise<void> {
  await rest.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
  });
}

export interface CreatedObject {
  readonly metadata: { readonly name: string; readonly namespace: string; readonly uid: string };
}

export async function createMemcacheds(
  rest: KubeRest,
  namespace: string,
  names: readonly string[],
  size: number,
  api: FleetApi,
  onCreated?: (created: CreatedObject) => Promise<unknown>,
): Promise<void> {
  await inPool(names, CLIENT_CONCURRENCY, async (name) => {
    const created = await rest.request<CreatedObject>('POST', MEMCACHEDS(namespace, api), {
      body: {
        apiVersion: `cache.example.com/${api.version}`,
        kind: 'Memcached',
        metadata: { name, namespace },
        spec: specOf(api, size),
      },
    });
    await onCreated?.(created);
  });
}

export async function resizeMemcacheds(
  rest: KubeRest,
  namespace: string,
  names: readonly string[],
  size: number,
  api: FleetApi,
  onResized?: (name: string) => Promise<unknown>,
): Promise<void> {
  await inPool(names, CLIENT_CONCURRENCY, async (name) => {
    await rest.request('PATCH', `${MEMCACHEDS(namespace, api)}/${name}`, {
      body: { spec: { [api.sizeField]: size } },
      contentType: 'application/merge-patch+json',
    });
    await onResized?.(name);
  });
}

/**
 * Deletes every Memcached with 16 requests in flight. Not one collection DELETE: the apiserver works through a
 * collection with one worker by default (`--delete-collection-workers=1`), which for 1,000 objects with
 * finalizers takes minutes and so measures the apiserver, not the operator.
 */
export async function deleteMemcacheds(
  rest: KubeRest,
  namespace: string,
  names: readonly string[],
): Promise<void> {
  await inPool(names, CLIENT_CONCURRENCY, (name) =>
    rest.request('DELETE', `${MEMCACHEDS(namespace)}/${name}`),
  );
}

export async function countPods(rest: KubeRest, namespace: string): Promise<number> {
  const list = await rest.request<{ items: unknown[] }>('GET', `/api/v1/namespaces/${namespace}/pods`);
  return list.items.length;
}
