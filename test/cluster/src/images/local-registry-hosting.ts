import { KubeApiError, type KubeRest } from '../kube/rest.js';
import type { BuiltImage } from './cluster-images.js';
import { localMirrorReference } from './mirror.js';

/**
 * The standard record of a local cluster's registry (KEP-1755, "Communicating a local registry"): a ConfigMap
 * `kube-public/local-registry-hosting` whose `localRegistryHosting.v1` tells tools outside the cluster where
 * to push images the cluster can pull, as kind's and minikube's registries do. `opkit deploy` reads it.
 */
export const LOCAL_REGISTRY_HOSTING = {
  namespace: 'kube-public',
  name: 'local-registry-hosting',
  key: 'localRegistryHosting.v1',
} as const;

/**
 * The Node base image the registry holds for operator images. An annotation, not a data key: the KEP freezes
 * the fields of `localRegistryHosting.v1` and keeps the data keys for its later versions, and a ConfigMap data
 * key cannot carry a domain prefix that says whose it is.
 */
export const BASE_IMAGE_ANNOTATION = 'opkit.dev/base-image';

/** Where the cluster's registry is documented (the KEP's `help`). */
export const LOCAL_REGISTRY_HELP = 'https://github.com/opkit/opkit#the-local-cluster';

/** What the cluster records about its registry. */
export interface LocalRegistryRecord {
  /** `127.0.0.1:<port>`: where tools on this machine push, and the name the node pulls by too. */
  readonly host: string;
  /** The base image for operator images, as pulled from `host`. */
  readonly baseImage: string;
}

/**
 * The ConfigMap. Only `host` and `help` are set: the node's containerd runs on this machine and pulls by the
 * same loopback address (so `hostFromContainerRuntime` defaults to it, as the KEP says), and pods cannot reach
 * a registry on loopback (so no `hostFromClusterNetwork`).
 */
export function localRegistryHostingConfigMap(record: LocalRegistryRecord): {
  readonly apiVersion: 'v1';
  readonly kind: 'ConfigMap';
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly annotations: Readonly<Record<string, string>>;
  };
  readonly data: Readonly<Record<string, string>>;
} {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: LOCAL_REGISTRY_HOSTING.name,
      namespace: LOCAL_REGISTRY_HOSTING.namespace,
      annotations: { [BASE_IMAGE_ANNOTATION]: record.baseImage },
    },
    data: {
      [LOCAL_REGISTRY_HOSTING.key]: `host: ${JSON.stringify(record.host)}\nhelp: ${JSON.stringify(LOCAL_REGISTRY_HELP)}\n`,
    },
  };
}

/**
 * Writes (or overwrites) the cluster's `local-registry-hosting` ConfigMap, by server-side apply, creating
 * `kube-public` first if the API server has not yet.
 */
export async function recordLocalRegistry(rest: KubeRest, record: LocalRegistryRecord): Promise<void> {
  const { namespace, name } = LOCAL_REGISTRY_HOSTING;
  try {
    await rest.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
    });
  } catch (error) {
    if (!(error instanceof KubeApiError && error.status === 409)) throw error;
  }
  await rest.request('PATCH', `/api/v1/namespaces/${namespace}/configmaps/${name}`, {
    body: localRegistryHostingConfigMap(record),
    contentType: 'application/apply-patch+yaml',
    query: { fieldManager: 'opkit-cluster', force: 'true' },
  });
}

/**
 * The reference, in the registry at `registryHost`, of the Node base image among the pushed `images`: its
 * full-version tag (`<host>/opkit/node:24.11.1`), so that images built on it stay the same while the cluster
 * lives. `undefined` when the set has no Node image.
 */
export function nodeBaseImage(images: readonly BuiltImage[], registryHost: string): string | undefined {
  const [reference] = images.find((image) => image.name === 'node')?.references ?? [];
  return reference === undefined ? undefined : localMirrorReference(reference, registryHost);
}
