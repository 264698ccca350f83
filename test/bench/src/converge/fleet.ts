import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeApiError, type KubeRest } from '@opkit/test-cluster';
import { parse } from 'yaml';

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
/** Every namespace's Memcacheds, for watches over a fleet spread over several namespaces. */
export const ALL_MEMCACHEDS = (api: FleetApi) => `/apis/cache.example.com/${api.version}/memcacheds`;

/** The spec of a Memcached with `size` servers on port 11211, in `api`'s shape. */
const specOf = (api: FleetApi, size: number) =>
  api.sizeField === 'size'
    ? { size, containerPort: 11211 }
    : { replicas: size, port: { containerPort: 11211 } };
export const DEPLOYMENTS = (namespace: string) => `/apis/apps/v1/namespaces/${namespace}/deployments`;
export const ALL_DEPLOYMENTS = '/apis/apps/v1/deployments';

/** One Memcached of a fleet. */
export interface FleetMember {
  readonly namespace: string;
  readonly name: string;
}

/** The Memcacheds of one run and the namespaces they live in. */
export interface FleetLayout {
  readonly namespaces: readonly string[];
  readonly members: readonly FleetMember[];
}

/**
 * `count` Memcacheds dealt round-robin over `namespaceCount` namespaces: `base` itself when there is one,
 * `base-0`, `base-1`, … otherwise. Kubernetes' own controllers find what selects a pod (its
 * PodDisruptionBudgets, its Services, a Deployment's ReplicaSets) by scanning the pod's namespace, so how
 * many Memcacheds share a namespace changes what every pod event costs the control plane.
 */
export function fleetLayout(base: string, namespaceCount: number, count: number): FleetLayout {
  const namespaces =
    namespaceCount === 1 ? [base] : Array.from({ length: namespaceCount }, (_, i) => `${base}-${i}`);
  const members = Array.from({ length: count }, (_, i) => ({
    namespace: namespaces[i % namespaces.length]!,
    name: `mc-${String(i).padStart(5, '0')}`,
  }));
  return { namespaces, members };
}

/** `namespace/name`: an object's key across namespaces. */
export const memberKey = (namespace: string, name: string) => `${namespace}/${name}`;

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

const CRD = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/memcacheds.cache.example.com';

interface MemcachedCrd {
  readonly spec: { readonly versions: { readonly name: string; storage: boolean }[] };
  readonly status?: { readonly storedVersions?: readonly string[] };
}

/** The Memcached CRD as generated (`config/crd/bases`), without the conversion webhook the kustomize overlay adds. */
const CRD_FILE = join(
  import.meta.dirname,
  '..',
  '..',
  '..',
  '..',
  'operators',
  'memcached',
  'config',
  'crd',
  'bases',
  'cache.example.com_memcacheds.yaml',
);

/**
 * Installs the benchmark's Memcached CRD: both versions served, no conversion (a test environment's installer
 * would aim it at a conversion webhook, which no benchmark runs: once objects of both versions are stored, the
 * API server could then list neither). Returns once the API serves it.
 */
export async function installFleetCrd(rest: KubeRest): Promise<void> {
  const crd = parse(readFileSync(CRD_FILE, 'utf8')) as unknown;
  await rest.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await rest.request('GET', '/apis/cache.example.com/v1alpha1/memcacheds', { query: { limit: 1 } });
      return;
    } catch (error) {
      if (!(error instanceof KubeApiError) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
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

export async function createNamespaces(rest: KubeRest, names: readonly string[]): Promise<void> {
  await inPool(names, CLIENT_CONCURRENCY, (name) =>
    rest.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
    }),
  );
}

export interface CreatedObject {
  readonly metadata: { readonly name: string; readonly namespace: string; readonly uid: string };
}

export async function createMemcacheds(
  rest: KubeRest,
  members: readonly FleetMember[],
  size: number,
  api: FleetApi,
  onCreated?: (created: CreatedObject) => Promise<unknown>,
): Promise<void> {
  await inPool(members, CLIENT_CONCURRENCY, async ({ namespace, name }) => {
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
  members: readonly FleetMember[],
  size: number,
  api: FleetApi,
  onResized?: (member: FleetMember) => Promise<unknown>,
): Promise<void> {
  await inPool(members, CLIENT_CONCURRENCY, async (member) => {
    await rest.request('PATCH', `${MEMCACHEDS(member.namespace, api)}/${member.name}`, {
      body: { spec: { [api.sizeField]: size } },
      contentType: 'application/merge-patch+json',
    });
    await onResized?.(member);
  });
}

/**
 * Deletes every Memcached with 16 requests in flight. Not one collection DELETE: the apiserver works through a
 * collection with one worker by default (`--delete-collection-workers=1`), which for 1,000 objects with
 * finalizers takes minutes and so measures the apiserver, not the operator.
 */
export async function deleteMemcacheds(rest: KubeRest, members: readonly FleetMember[]): Promise<void> {
  await inPool(members, CLIENT_CONCURRENCY, ({ namespace, name }) =>
    rest.request('DELETE', `${MEMCACHEDS(namespace)}/${name}`),
  );
}

/** How many objects the collection `path(namespace)` holds, over all `namespaces`. */
export async function countObjects(
  rest: KubeRest,
  namespaces: readonly string[],
  path: (namespace: string) => string,
): Promise<number> {
  let count = 0;
  for (const namespace of namespaces) {
    count += (await rest.request<{ items: unknown[] }>('GET', path(namespace))).items.length;
  }
  return count;
}

export const PODS = (namespace: string) => `/api/v1/namespaces/${namespace}/pods`;
