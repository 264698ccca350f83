import { join } from 'node:path';
import { KubeRest, type LocalCluster, startCluster, workspaceRoot } from '@opkit/test-cluster';
import { pushReleasedOperatorImages } from '@opkit/test-cluster/vitest';
import { afterAll, beforeAll } from 'vitest';
import { type CatalogServer, catalogWithBundleImages, pushCatalogImage, serveCatalog } from './opkit-cli.js';

/**
 * How OLM gets the catalog:
 * - `host`: `opkit catalog serve --inline-bundles` on the host, at the node's address (OLM's catalog
 *   operator runs in a pod); a CatalogSource names that address.
 * - `serving-image`: our serving catalog image (`opkit catalog image --base`), which OLM runs as its
 *   registry pod as it is.
 * - `content-image`: a catalog-only image (`opkit catalog image`), whose content OLM copies out and serves
 *   with its own opm (`grpcPodConfig.extractContent`).
 */
export type CatalogDelivery = 'host' | 'serving-image' | 'content-image';

/** A control plane with OLM and a catalog made available to it, shared by the tests of one file. */
export interface OlmWorld {
  readonly cluster: LocalCluster;
  readonly rest: KubeRest;
  /** The catalog served from the host, with `host` delivery. */
  readonly catalog?: CatalogServer;
  /** The catalog image in the cluster's registry, with image delivery. */
  readonly catalogImage?: string;
  /** The catalog's bundle images by `<package>/<version>`, with `bundleImages`. */
  readonly bundleImages: ReadonlyMap<string, string>;
}

/**
 * The operator's images of its released versions, pushed to the cluster's registry under each version's tag
 * of the repository the bundles name (the registry that repository's host resolves to on the test node is the
 * cluster's own). Versions run the working tree's code, except those in `fromReleaseCommits`, which run the
 * code of their release commit: an upgrade across an API change must start from what was really shipped.
 */
export interface OperatorImages {
  /** The operator project, e.g. `operators/memcached`. */
  readonly operator: string;
  /** The repository the bundles name, without registry: `memcached-operator`. */
  readonly repository: string;
  readonly versions: readonly string[];
  readonly fromReleaseCommits?: readonly string[];
}

/**
 * Starts a cluster with OLM before the file's tests, pushes the operator images and makes the catalog
 * `catalogDir()` available as `delivery` says; tears everything down after the tests. With `bundleImages`,
 * the released bundles are pushed as bundle images and the catalog is rebuilt from our templates to name them
 * by digest, so OLM installs through its bundle-unpack Jobs, as in production. Publishing the catalog is left
 * to the tests, which check it.
 */
export function useOlmWorld(options: {
  readonly catalogDir: () => string;
  readonly delivery: CatalogDelivery;
  readonly bundleImages?: boolean;
  readonly images?: OperatorImages;
}): () => OlmWorld {
  let world: OlmWorld | undefined;
  let cluster: LocalCluster | undefined;
  let rest: KubeRest | undefined;
  let catalog: CatalogServer | undefined;

  beforeAll(async () => {
    cluster = await startCluster({ olm: true });
    rest = new KubeRest(cluster.kubeConfig);
    const registry = cluster.registry;
    const images = options.images;
    if (images) {
      if (!registry) throw new Error('the cluster has no registry (no real node)');
      await pushReleasedOperatorImages({
        repoRoot: workspaceRoot,
        operator: images.operator,
        registry,
        repository: images.repository,
        versions: images.versions,
        fromReleaseCommits: images.fromReleaseCommits,
        layoutDir: join(cluster.dir, `${images.repository}-image`),
      });
    }
    let catalogDir = options.catalogDir();
    let bundleImages: ReadonlyMap<string, string> = new Map();
    if (options.bundleImages) {
      if (!registry) throw new Error('the cluster has no registry (no real node)');
      ({ catalogDir, bundleImages } = await catalogWithBundleImages({
        registry,
        workDir: join(cluster.dir, 'bundle-images'),
      }));
    }
    if (options.delivery === 'host') {
      if (!cluster.realNode) throw new Error('the cluster has no real node');
      catalog = await serveCatalog(catalogDir, join(cluster.dir, 'catalog-serve.log'), cluster.realNode.ip);
      world = { cluster, rest, catalog, bundleImages };
      return;
    }
    if (!registry) throw new Error('the cluster has no registry (no real node)');
    const catalogImage = await pushCatalogImage({
      catalogDir,
      registry,
      layoutDir: join(cluster.dir, 'catalog-image'),
      serving: options.delivery === 'serving-image',
      inlineBundles: !options.bundleImages,
    });
    world = { cluster, rest, catalogImage, bundleImages };
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
