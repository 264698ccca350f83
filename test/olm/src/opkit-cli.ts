import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { waitForServing } from '@opkit/olm/registry';

export const repositoryRoot = join(import.meta.dirname, '..', '..', '..');
const opkitBin = join(repositoryRoot, 'tools', 'opkit', 'bin', 'opkit.js');

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A free loopback TCP port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}

/**
 * Builds our catalog's serving image (`opkit catalog image --base`, on the cluster's Node base image, bundle
 * manifests inline) and pushes it to the cluster's registry; returns the reference.
 */
export async function pushCatalogImage(options: {
  readonly catalogDir: string;
  readonly registry: string;
  readonly layoutDir: string;
}): Promise<string> {
  const reference = `${options.registry}/opkit-catalog:dev`;
  for (const args of [
    [
      'catalog',
      'image',
      options.catalogDir,
      '--layout',
      options.layoutDir,
      '--tag',
      reference,
      '--base',
      `${options.registry}/opkit/node:24`,
      '--plain-http',
      '--inline-bundles',
    ],
    ['image', 'push', options.layoutDir, reference, '--plain-http'],
  ]) {
    const result = await opkit(args);
    if (result.code !== 0) throw new Error(`opkit ${args.slice(0, 2).join(' ')} failed: ${result.stderr}`);
  }
  return reference;
}

/** Runs the `opkit` command line to completion. */
export function opkit(args: readonly string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [opkitBin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** A running `opkit catalog serve`. */
export interface CatalogServer {
  readonly address: string;
  stop(): Promise<void>;
}

/** Serves a catalog directory with inline bundles on a free loopback port until stopped. */
export async function serveCatalog(catalogDir: string, logPath: string): Promise<CatalogServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    [
      opkitBin,
      'catalog',
      'serve',
      catalogDir,
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--inline-bundles',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const log = createWriteStream(logPath);
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const address = `127.0.0.1:${port}`;
  const failed = new Promise<never>((_, reject) =>
    child.once('exit', (code) =>
      reject(new Error(`opkit catalog serve exited with ${code}: ${readFileSync(logPath, 'utf8')}`)),
    ),
  );
  failed.catch(() => undefined);
  // Ready when the gRPC health service says SERVING, as OLM's own probe of a registry checks it.
  await Promise.race([waitForServing(address, 60_000), failed]);
  return {
    address,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      log.end();
    },
  };
}

/** Publishes a served catalog as a CatalogSource with `opkit catalog publish`, which waits for READY. */
export async function publishCatalog(options: {
  readonly name: string;
  readonly namespace: string;
  /** `host:port` of a served catalog, or… */
  readonly address?: string;
  /** …a catalog image OLM runs as a registry pod. */
  readonly image?: string;
  readonly kubeconfigPath: string;
  readonly timeout?: string;
}): Promise<CliResult> {
  return opkit([
    'catalog',
    'publish',
    '--name',
    options.name,
    '--namespace',
    options.namespace,
    ...(options.address !== undefined ? ['--address', options.address] : []),
    ...(options.image !== undefined ? ['--image', options.image] : []),
    '--kubeconfig',
    options.kubeconfigPath,
    '--timeout',
    options.timeout ?? '120s',
  ]);
}
