import { join } from 'node:path';
import { KubeRest, type LocalCluster, startCluster } from '@opkit/test-cluster';
import { afterAll, beforeAll } from 'vitest';
import type { OperatorProcess } from './operator-process.js';
import { type CatalogServer, serveCatalog } from './opkit-cli.js';

/** A control plane with OLM and a catalog served to it, shared by the tests of one file. */
export interface OlmWorld {
  readonly cluster: LocalCluster;
  readonly rest: KubeRest;
  readonly catalog: CatalogServer;
  /** Stops the operator when the file's tests are done, if the test has not stopped it. */
  track(operator: OperatorProcess): OperatorProcess;
}

/**
 * Starts a control plane with OLM and `opkit catalog serve --inline-bundles` of `catalogDir()` before the
 * file's tests, and tears both down after them. Publishing is left to the tests, which check it.
 */
export function useOlmWorld(options: {
  readonly nodes?: number;
  readonly catalogDir: () => string;
}): () => OlmWorld {
  let world: OlmWorld | undefined;
  const operators: OperatorProcess[] = [];
  let cluster: LocalCluster | undefined;
  let rest: KubeRest | undefined;
  let catalog: CatalogServer | undefined;

  beforeAll(async () => {
    cluster = await startCluster({ nodes: options.nodes ?? 1, olm: true });
    rest = new KubeRest(cluster.kubeConfig);
    catalog = await serveCatalog(options.catalogDir(), join(cluster.dir, 'catalog-serve.log'));
    world = {
      cluster,
      rest,
      catalog,
      track(operator) {
        operators.push(operator);
        return operator;
      },
    };
  });

  afterAll(async () => {
    for (const operator of operators) await operator.stop();
    await catalog?.stop();
    rest?.close();
    await cluster?.stop();
  });

  return () => {
    if (!world) throw new Error('the OLM world is only there inside tests');
    return world;
  };
}
