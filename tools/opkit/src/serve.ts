import { loadRegistry, startRegistryServer } from '@opkit/olm/registry';
import { resolveCatalogSource } from './catalog-source.js';
import { CliError } from './cli-error.js';

/** Options of `opkit catalog serve`. */
export interface ServeOptions {
  readonly port: number;
  readonly host: string;
  readonly inlineBundles: boolean;
  readonly bundlesDir: string;
  readonly plainHttp: boolean;
  /** opm's serve cache: where it is kept, whether only to write it, whether a stale one stops the server. */
  readonly cache?: { readonly dir: string; readonly only: boolean; readonly enforceIntegrity: boolean };
}

const log = (line: string): void => {
  process.stdout.write(`${new Date().toISOString()} ${line}\n`);
};

/**
 * `opkit catalog serve`: loads and validates the catalog, serves the registry API until SIGINT/SIGTERM, then
 * lets running calls finish and exits.
 */
export async function serveCatalog(source: string, options: ServeOptions): Promise<void> {
  const started = performance.now();
  const catalog = await resolveCatalogSource(source, { plainHttp: options.plainHttp });
  try {
    const loaded = await loadRegistry(catalog.dir, {
      inlineBundles: options.inlineBundles,
      bundlesDir: options.bundlesDir,
      ...(options.cache !== undefined
        ? {
            cacheDir: options.cache.dir,
            enforceCacheIntegrity: options.cache.enforceIntegrity && !options.cache.only,
          }
        : {}),
    });
    const cache = loaded.cache;
    if (cache !== undefined) {
      const where = `serve cache ${options.cache?.dir}`;
      if (cache.used) log(`${where}: used`);
      else if (cache.written) log(`${where}: written (${cache.why})`);
      else if (options.cache?.only)
        throw new CliError('OPKIT_CACHE_WRITE_FAILED', `${where}: ${cache.writeError}`);
      else log(`${where}: not written, serving without it: ${cache.writeError}`);
    }
    if (options.cache?.only) return;
    const server = await startRegistryServer(loaded.queries, { port: options.port, host: options.host });
    // The signal handlers come before the line that says the server listens: a supervisor that stops the server
    // as soon as it reads that line must find it ready to shut down gracefully.
    const stopped = new Promise<void>((resolve) => {
      let stopping = false;
      const stop = (signal: NodeJS.Signals): void => {
        if (stopping) return;
        stopping = true;
        log(`${signal}: shutting down`);
        void server.close().then(resolve);
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    const loadMs = Math.round(performance.now() - started);
    log(
      `serving ${catalog.description}: ${loaded.packages} packages, ${loaded.bundles} bundles` +
        `${options.inlineBundles ? ', bundles inline' : ''}; loaded in ${loadMs} ms`,
    );
    log(`listening on ${server.address} (api.Registry, grpc.health.v1.Health)`);
    await stopped;
    log('stopped');
  } finally {
    await catalog.dispose();
  }
}

/** Parses `--port`: 0 (pick a free port) to 65535. */
export function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) {
    throw new CliError(
      'OPKIT_ARGUMENT_INVALID',
      `--port ${JSON.stringify(value)}: expected a port number 0-65535`,
    );
  }
  return port;
}
