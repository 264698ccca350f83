import type { UnpackedCatalog } from '@opkit/olm/action/catalog-image';
import { type LoadedRegistry, loadRegistry, startRegistryServer } from '@opkit/olm/registry/server';
import { catalogDirectory } from './catalog-directory.js';
import { CliError } from './cli-error.js';
import { endBySignal, takeStopSignals } from './stop-signals.js';

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

/** `work`, or the signal's reason as soon as it is aborted (work that cannot be stopped is left behind). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const abort = (): void => reject(signal.reason);
    if (signal.aborted) {
      abort();
      return;
    }
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/**
 * The catalog to serve: a directory as it is, anything else (an image layout or reference, a git tree) through
 * `catalog-source.ts`, whose image, registry and git code only then loads: a server keeps every module it
 * loaded for as long as it runs.
 */
async function servedCatalog(
  source: string,
  plainHttp: boolean,
  signal: AbortSignal,
): Promise<UnpackedCatalog> {
  const directory = catalogDirectory(source);
  if (directory !== undefined) return directory;
  const { resolveCatalogSource } = await import('./catalog-source.js');
  return await resolveCatalogSource(source, { plainHttp, signal });
}

/** A word as a POSIX shell reads it back: quoted only when it has characters the shell would take. */
const shellWord = (word: string): string =>
  /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;

/** The command that rebuilds the serve cache for these options, for the message that refuses a stale one. */
export function rebuildCacheCommand(source: string, options: ServeOptions, cacheDir: string): string {
  const serving = options.inlineBundles ? ['--inline-bundles', '--bundles-dir', options.bundlesDir] : [];
  const words = ['catalog', 'serve', source, ...serving, '--cache-dir', cacheDir, '--cache-only'];
  return `opkit ${words.map(shellWord).join(' ')}`;
}

/**
 * `opkit catalog serve`: loads and validates the catalog, serves the registry API until SIGINT/SIGTERM, then
 * lets running calls finish and exits. The signals are taken from the start: one that comes while the image
 * is still pulled, unpacked or loaded stops that work, removes the temp dir, and ends the process by that
 * signal.
 */
export async function serveCatalog(source: string, options: ServeOptions): Promise<void> {
  const started = performance.now();
  const stop = takeStopSignals((signal) => log(`${signal}: shutting down`));
  let catalog: UnpackedCatalog | undefined;
  let loaded: LoadedRegistry | undefined;
  let stoppedEarly = false;
  try {
    catalog = await servedCatalog(source, options.plainHttp, stop.signal);
    const loading = loadRegistry(catalog.dir, {
      inlineBundles: options.inlineBundles,
      bundlesDir: options.bundlesDir,
      ...(options.cache !== undefined
        ? {
            cacheDir: options.cache.dir,
            enforceCacheIntegrity: options.cache.enforceIntegrity && !options.cache.only,
            rebuildCommand: `\`${rebuildCacheCommand(source, options, options.cache.dir)}\``,
          }
        : {}),
    });
    // A load a signal interrupted still releases the cache file it opened, once it is done.
    loading.then(
      (done) => {
        if (stop.signal.aborted) void done.close();
      },
      () => {},
    );
    loaded = await untilAborted(loading, stop.signal);
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
    // Stopping is ready before the line that says the server listens: a supervisor that stops the server as
    // soon as it reads that line finds it shutting down gracefully.
    const stopped = new Promise<void>((resolve) => {
      if (stop.signal.aborted) resolve();
      else stop.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    const loadMs = Math.round(performance.now() - started);
    log(
      `serving ${catalog.description}: ${loaded.packages} packages, ${loaded.bundles} bundles` +
        `${options.inlineBundles ? ', bundles inline' : ''}; loaded in ${loadMs} ms`,
    );
    log(`listening on ${server.address} (api.Registry, grpc.health.v1.Health)`);
    await stopped;
    await server.close();
    log('stopped');
  } catch (err) {
    if (!stop.signal.aborted) throw err;
    stoppedEarly = true;
  } finally {
    // After the server has stopped: no call reads the cache file any more.
    await loaded?.close();
    await catalog?.dispose();
    stop.release();
  }
  const signal = stop.received();
  if (stoppedEarly && signal !== undefined) {
    endBySignal(signal);
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
