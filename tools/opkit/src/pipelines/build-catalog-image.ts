import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CATALOG_CONFIGS_DIR, CATALOG_CONFIGS_LABEL, layerFromDirectory, sourceDateEpoch } from '@opkit/oci';
import { loadRegistry } from '@opkit/olm/registry';
import { CLI_PACKAGE_DIR } from '../package-dir.js';
import { buildOperatorImage, type OperatorImage } from './build-operator-image.js';

/**
 * The CLI's modules to bundle: its TypeScript sources in the repository (so an image's digest follows the
 * sources, whether or not they are built), its JavaScript build in an installed package, which ships no
 * sources.
 */
function cliModule(name: string): string {
  const source = join('src', `${name}.ts`);
  return existsSync(join(CLI_PACKAGE_DIR, source)) ? source : join('dist', `${name}.js`);
}

/** Where OLM's registry pod looks for its probe program (on PATH). */
export const HEALTH_PROBE_PATH = '/usr/local/bin/grpc_health_probe';

/** Where the image keeps its serve cache (where opm's images keep theirs). */
export const SERVE_CACHE_DIR = '/tmp/cache';
/** The bundle directories `--inline-bundles` would read in the image (it ships none: bundles come inline). */
const IMAGE_BUNDLES_DIR = '/app/bundles';

/**
 * A catalog image that serves, as opm's images do: the catalog under `/configs` with the index.configs label,
 * and the `opkit` CLI as the entrypoint running `catalog serve /configs` on :50051, plus `grpc_health_probe`
 * for the probes OLM puts on its registry pods. Runs as a numeric non-root user. The catalog is validated and
 * converted here, once, into a serve cache the server starts from (as opm's images do with `--cache-only`);
 * should the image's Node not read it, the server loads the catalog itself.
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
  const mtime = sourceDateEpoch() ?? 0;
  const configs = await layerFromDirectory(o.configsDir, { prefix: CATALOG_CONFIGS_DIR, mtime });
  const scratch = await mkdtemp(join(tmpdir(), 'opkit-serve-cache-'));
  try {
    const serving = o.inlineBundles ? ['--inline-bundles', '--bundles-dir', IMAGE_BUNDLES_DIR] : [];
    const loaded = await loadRegistry(o.configsDir, {
      inlineBundles: o.inlineBundles,
      bundlesDir: IMAGE_BUNDLES_DIR,
      cacheDir: scratch,
    });
    // Built from the catalog here, not read from a cache: nothing is held open, but release it all the same.
    await loaded.close();
    if (loaded.cache?.used === false && !loaded.cache.written) {
      throw new Error(`cannot write the serve cache: ${loaded.cache.writeError}`);
    }
    o.log(
      `serve cache: ${loaded.packages} packages, ${loaded.bundles} bundles converted for ${SERVE_CACHE_DIR}`,
    );
    const cache = await layerFromDirectory(scratch, { prefix: SERVE_CACHE_DIR, mtime });
    return await buildOperatorImage({
      operatorDir: CLI_PACKAGE_DIR,
      entry: cliModule('main'),
      base: o.base,
      out: o.layout,
      output: { name: '--layout', inputs: [{ name: '<dir>', path: o.configsDir }] },
      tag: o.tag,
      plainHttp: o.plainHttp,
      args: [
        'catalog',
        'serve',
        CATALOG_CONFIGS_DIR,
        ...serving,
        '--cache-dir',
        SERVE_CACHE_DIR,
        // A cache the image's Node cannot read is no reason not to serve: the catalog is loaded instead.
        '--no-cache-enforce-integrity',
      ],
      executables: [{ path: HEALTH_PROBE_PATH, entry: cliModule('health-probe') }],
      layers: [configs, cache],
      labels: { [CATALOG_CONFIGS_LABEL]: CATALOG_CONFIGS_DIR },
      log: o.log,
    });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
