import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { waitUntilReady } from '../control-plane/readiness.js';
import { ManagedProcess } from '../process/managed-process.js';
import { ImageBuildError, ImageToolMissingError } from './errors.js';

/** Debian's build of the CNCF distribution registry (2.x). */
const REGISTRY_PROGRAM = '/usr/bin/docker-registry';

/** A registry process on loopback. */
export interface ImageRegistry {
  /** `127.0.0.1:<port>`: the host part of references into this registry. */
  readonly host: string;
  readonly port: number;
  /** The process, which dies with this one however this one dies. */
  readonly process: ManagedProcess;
  /** Stops the process; the storage stays for the next start. */
  stop(): Promise<void>;
}

/** Options of {@link startImageRegistry}. */
export interface ImageRegistryOptions {
  /** Port on 127.0.0.1; default: a free one. */
  readonly port?: number;
  /** Milliseconds to wait for `GET /v2/`; default 15000. */
  readonly readyTimeoutMs?: number;
}

/**
 * The registry's config: anonymous, plain HTTP on loopback only, storage under `dir/data`, quiet logs, and no
 * upload purging (a background job pointless for a short-lived process).
 */
export function registryConfig(dir: string, host: string, secret: string): string {
  return [
    'version: 0.1',
    'log:',
    '  level: error',
    '  accesslog:',
    '    disabled: true',
    'storage:',
    '  filesystem:',
    `    rootdirectory: ${join(dir, 'data')}`,
    '  maintenance:',
    '    uploadpurging:',
    '      enabled: false',
    'http:',
    `  addr: ${host}`,
    `  secret: ${secret}`,
    '',
  ].join('\n');
}

/**
 * Starts Debian's `docker-registry` with a config written to `dir/config.yml` and its storage under
 * `dir/data`, listening on 127.0.0.1; resolves once `GET /v2/` answers 200. Its output goes to `logFile`
 * (default `dir/registry.log`). Images pushed there survive a restart on the same `dir`.
 *
 * @throws ImageToolMissingError without docker-registry; ComponentStartError with the registry's last output
 *   when it exits or does not become ready in time.
 */
export async function startImageRegistry(
  dir: string,
  logFile?: string,
  options: ImageRegistryOptions = {},
): Promise<ImageRegistry> {
  if (!existsSync(REGISTRY_PROGRAM)) throw new ImageToolMissingError(REGISTRY_PROGRAM, 'docker-registry');
  const port = options.port ?? (await freePort());
  const host = `127.0.0.1:${port}`;
  await mkdir(join(dir, 'data'), { recursive: true });
  const config = join(dir, 'config.yml');
  await writeFile(config, registryConfig(dir, host, randomBytes(16).toString('hex')));
  const process = new ManagedProcess({
    name: 'registry',
    command: REGISTRY_PROGRAM,
    args: ['serve', config],
    logFile: logFile ?? join(dir, 'registry.log'),
  });
  await process.start();
  try {
    await waitUntilReady(
      process,
      async () => (await probe(`http://${host}/v2/`)) === 200,
      options.readyTimeoutMs ?? 15_000,
    );
  } catch (error) {
    await process.close();
    throw error;
  }
  return { host, port, process, stop: () => process.close() };
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || address === null) throw new ImageBuildError('no free port on 127.0.0.1');
  return address.port;
}

function probe(url: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const req = get(url, { agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('error', () => resolve(undefined));
    req.setTimeout(1000, () => req.destroy());
  });
}
