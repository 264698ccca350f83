import { join } from 'node:path';
import { ensureComponents } from './build.js';
import { opmRecipe } from './recipes.js';

/** The path of a cached opm binary, building it from its Go module on first use. */
export async function opmBinary(onProgress?: (line: string) => void): Promise<string> {
  const built = await ensureComponents([opmRecipe], { onProgress });
  return join(built.opm!.dir, 'opm');
}

/** Options of {@link opmServeArgs}. */
export interface OpmServeOptions {
  /** The gRPC port, on every interface as opm binds it; left out with `cacheOnly`. */
  readonly port?: number;
  /** Where opm keeps its cache; without one it builds the cache in a fresh temp dir at every start. */
  readonly cacheDir?: string;
  /** Build the cache in `cacheDir` and exit, as a catalog image's build does. */
  readonly cacheOnly?: boolean;
  /** The file of opm's termination message; its default, /dev/termination-log, is only writable in a pod. */
  readonly terminationLog?: string;
}

/** The arguments of `opm serve <catalog>` (after the binary) for a server started beside others on one host. */
export function opmServeArgs(catalog: string, options: OpmServeOptions): string[] {
  return [
    'serve',
    catalog,
    ...(options.port === undefined ? [] : ['-p', String(options.port)]),
    // opm's default pprof address, localhost:6060, is one port for every server: a second one would not start.
    '--pprof-addr',
    '127.0.0.1:0',
    ...(options.terminationLog === undefined ? [] : ['-t', options.terminationLog]),
    ...(options.cacheDir === undefined ? [] : ['--cache-dir', options.cacheDir]),
    ...(options.cacheOnly ? ['--cache-only'] : []),
  ];
}
