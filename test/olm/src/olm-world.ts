import { join } from 'node:path';
import { KubeRest, type LocalCluster, startCluster } from '@opkit/test-cluster';
import { pushOperatorImage } from '@opkit/test-cluster/vitest';
import { afterAll, beforeAll } from 'vitest';
import { type CatalogServer, repositoryRoot, serveCatalog } from './opkit-cli.js';

/** A control plane with OLM and a catalog served to it, shared by the tests of one file. */
export interface OlmWorld {
  readonly cluster: LocalCluster;
  readonly rest: KubeRest;
  readonly catalog: CatalogServer;
}

/**
 * An operator image of our sources, pushed to the cluster's registry under every released version's tag of
 * the repository the bundles name: the registry that repository's host resolves to on the test node is the
 * cluster's own. Every version therefore runs the current code; the versions differ in CRD, CSV and rights.
 */
export interface OperatorImages {
  /** The operator project, e.g. `operators/memcached`. */
  readonly operator: string;
  /** The repository the bundles name, without registry: `memcached-operator`. */
  readonly repository: string;
  readonly versions: readonly string[];
}

/**
 * Starts a control plane with OLM and `opkit catalog serve --inline-bundles` of `catalogDir()` before the
 * file's tests, and tears both down after them. Publishing is left to the tests, which check it.
 */
export function useOlmWorld(options: {
  readonly catalogDir: () => string;
  readonly images?: OperatorImages;
}): () => OlmWorld {
  let world: OlmWorld | undefined;
  let cluster: LocalCluster | undefined;
  let rest: KubeRest | undefined;
  let catalog: CatalogServer | undefined;

  beforeAll(async () => {
    cluster = await startCluster({ olm: true });
    rest = new KubeRest(cluster.kubeConfig);
    const images = options.images;
    if (images) {
      if (!cluster.registry) throw new Error('the cluster has no registry (no real node)');
      await pushOperatorImage({
        operatorDir: join(repositoryRoot, images.operator),
        registry: cluster.registry,
        repository: images.repository,
        tags: images.versions,
        layoutDir: join(cluster.dir, `${images.repository}-image`),
      });
    }
    catalog = await serveCatalog(options.catalogDir(), join(cluster.dir, 'catalog-serve.log'));
    world = {
      cluster,
      rest,
      catalog,
    };
  });

  afterAll(async () => {
    await catalog?.stop();
    rest?.close();
    await cluster?.stop();
  });

  return () => {
    if (!world) throw new Error('the OLM world is only there inside tests');
    return world;
  };
}
