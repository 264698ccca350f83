import { join } from 'node:path';
import { KubeRest, type LocalCluster, startCluster } from '@opkit/test-cluster';
import { pushOperatorImage } from '@opkit/test-cluster/vitest';
import { afterAll, beforeAll } from 'vitest';
import { type CatalogServer, pushCatalogImage, repositoryRoot, serveCatalog } from './opkit-cli.js';

/** A control plane with OLM and a catalog served to it, shared by the tests of one file. */
export interface OlmWorld {
  readonly cluster: LocalCluster;
  readonly rest: KubeRest;
  /** The catalog served from the host (`opkit catalog serve`), when the world was asked to. */
  readonly catalog?: CatalogServer;
  /** The serving catalog image in the cluster's registry, when the world was asked to build one. */
  readonly catalogImage?: string;
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
 * Starts a cluster with OLM before the file's tests, pushes the operator images, and serves the catalog
 * `catalogDir()` from the host (`opkit catalog serve --inline-bundles`), or, with `catalogImage`, builds its
 * serving image and pushes it; tears everything down after the tests. Publishing is left to the tests, which
 * check it.
 */
export function useOlmWorld(options: {
  readonly catalogDir: () => string;
  readonly catalogImage?: boolean;
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
    if (options.catalogImage) {
      if (!cluster.registry) throw new Error('the cluster has no registry (no real node)');
      const catalogImage = await pushCatalogImage({
        catalogDir: options.catalogDir(),
        registry: cluster.registry,
        layoutDir: join(cluster.dir, 'catalog-image'),
      });
      world = { cluster, rest, catalogImage };
    } else {
      catalog = await serveCatalog(options.catalogDir(), join(cluster.dir, 'catalog-serve.log'));
      world = { cluster, rest, catalog };
    }
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
