import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CATALOG_CONFIGS_DIR, CATALOG_CONFIGS_LABEL, layerFromDirectory, sourceDateEpoch } from '@opkit/oci';
import { buildOperatorImage, type OperatorImage } from './build-operator-image.js';

/** The CLI's own project: the catalog server is `opkit catalog serve`, bundled like an operator. */
const cliDir = join(import.meta.dirname, '..', '..');

/**
 * The CLI's modules to bundle: its TypeScript sources in the repository (so an image's digest follows the
 * sources, whether or not they are built), its JavaScript build in an installed package, which ships no
 * sources.
 */
function cliModule(name: string): string {
  const source = join('src', `${name}.ts`);
  return existsSync(join(cliDir, source)) ? source : join('dist', `${name}.js`);
}

/** Where OLM's registry pod looks for its probe program (on PATH). */
export const HEALTH_PROBE_PATH = '/usr/local/bin/grpc_health_probe';

/**
 * A catalog image that serves, as opm's images do: the catalog under `/configs` with the index.configs label,
 * and the `opkit` CLI as the entrypoint running `catalog serve /configs` on :50051, plus `grpc_health_probe`
 * for the probes OLM puts on its registry pods. Runs as a numeric non-root user.
 */
export async function buildServingCatalogImage(o: {
  readonly configsDir: string;
  readonly base: string;
  readonly layout: string;
  readonly tag: string;
  readonly inlineBundles: boolean;
  readonly plainHttp: boolean;
  readonly log: (line: string) => void;
}): Promise<OperatorImage> {
  const configs = await layerFromDirectory(o.configsDir, {
    prefix: CATALOG_CONFIGS_DIR,
    mtime: sourceDateEpoch() ?? 0,
  });
  return buildOperatorImage({
    operatorDir: cliDir,
    entry: cliModule('main'),
    base: o.base,
    out: o.layout,
    tag: o.tag,
    plainHttp: o.plainHttp,
    args: ['catalog', 'serve', CATALOG_CONFIGS_DIR, ...(o.inlineBundles ? ['--inline-bundles'] : [])],
    executables: [{ path: HEALTH_PROBE_PATH, entry: cliModule('health-probe') }],
    layers: [configs],
    labels: { [CATALOG_CONFIGS_LABEL]: CATALOG_CONFIGS_DIR },
    log: o.log,
  });
}
