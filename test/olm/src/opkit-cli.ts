import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { waitForServing } from '@opkit/olm/registry';
import { opkitScript, releasedData, workspaceRoot } from '@opkit/test-cluster';

const opkitBin = opkitScript();

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
 * Builds the catalog image of `catalogDir` and pushes it to the cluster's registry; returns the reference.
 * `serving`: our serving image (`opkit catalog image --base`, on the cluster's Node base image), with bundle
 * manifests inline when `inlineBundles`; otherwise the catalog-only image OLM extracts.
 */
export async function pushCatalogImage(options: {
  readonly catalogDir: string;
  readonly registry: string;
  readonly layoutDir: string;
  readonly serving: boolean;
  readonly inlineBundles: boolean;
}): Promise<string> {
  const reference = `${options.registry}/opkit-catalog:${options.serving ? 'serving' : 'content'}`;
  const base = options.serving ? ['--base', `${options.registry}/opkit/node:24`, '--plain-http'] : [];
  const inline = options.serving && options.inlineBundles ? ['--inline-bundles'] : [];
  await opkitOrThrow([
    'catalog',
    'image',
    options.catalogDir,
    '--layout',
    options.layoutDir,
    '--tag',
    reference,
    ...base,
    ...inline,
  ]);
  await opkitOrThrow(['image', 'push', options.layoutDir, reference, '--plain-http']);
  return reference;
}

/**
 * Our released bundles as bundle images in the cluster's registry (`opkit bundle image`, `opkit bundle push`
 * to `<registry>/opkit`, tagged `v<version>`). Returns each bundle's image by digest, by `<package>/<version>`.
 */
export async function pushBundleImages(options: {
  readonly registry: string;
  readonly workDir: string;
}): Promise<ReadonlyMap<string, string>> {
  const bundlesDir = releasedData.bundles;
  const imagesDir = join(options.workDir, 'images');
  for (const pkg of readdirSync(bundlesDir, { withFileTypes: true }).filter((d) => d.isDirectory())) {
    for (const version of readdirSync(join(bundlesDir, pkg.name))) {
      await opkitOrThrow([
        'bundle',
        'image',
        join(bundlesDir, pkg.name, version),
        '--layout',
        join(imagesDir, `${pkg.name}-bundle`, version),
        '--tag',
        version,
      ]);
    }
  }
  const repository = `${options.registry}/opkit`;
  const pushed = await opkitOrThrow([
    'bundle',
    'push',
    '--images',
    imagesDir,
    '--repository',
    repository,
    '--plain-http',
  ]);
  // `pushed <repository>/<package>-bundle:v<version>@<digest>`, one line per bundle.
  const bundleImages = new Map<string, string>();
  for (const [, name, version, digest] of pushed.stdout.matchAll(
    /^pushed \S+\/([^/\s]+)-bundle:v(\S+)@(sha256:[0-9a-f]{64})$/gm,
  )) {
    bundleImages.set(`${name}/${version}`, `${repository}/${name}-bundle@${digest}`);
  }
  return bundleImages;
}

/**
 * Our released bundles as bundle images in the cluster's registry ({@link pushBundleImages}), and our catalog
 * rebuilt from its templates to name them by digest (`opkit catalog build --bundle-images`). Returns the
 * catalog directory and each bundle's image by `<package>/<version>`.
 */
export async function catalogWithBundleImages(options: {
  readonly registry: string;
  readonly workDir: string;
}): Promise<{ readonly catalogDir: string; readonly bundleImages: ReadonlyMap<string, string> }> {
  const bundleImages = await pushBundleImages(options);
  const repository = `${options.registry}/opkit`;
  const catalogDir = join(options.workDir, 'catalog');
  const templates = readdirSync(releasedData.catalogTemplates).map((f) => join('catalog', 'templates', f));
  // Templates name bundles by their path from the repository root, as catalog:build runs.
  await opkitOrThrow(
    [
      'catalog',
      'build',
      '--template',
      ...templates,
      '--bundles',
      'bundles',
      '--out',
      catalogDir,
      '--bundle-images',
      repository,
      '--plain-http',
    ],
    { cwd: workspaceRoot },
  );
  return { catalogDir, bundleImages };
}

async function opkitOrThrow(args: readonly string[], options: { readonly cwd?: string } = {}) {
  const result = await opkit(args, options);
  if (result.code !== 0) {
    throw new Error(`opkit ${args.slice(0, 2).join(' ')} failed (${result.code}): ${result.stderr}`);
  }
  return result;
}

/** Runs the `opkit` command line to completion, on this process's Node or on the `node` binary given. */
export function opkit(
  args: readonly string[],
  options: { readonly cwd?: string; readonly node?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.node ?? process.execPath, [opkitBin, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    });
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

/**
 * Serves a catalog directory on a free port of `host` until stopped, with its bundles inline unless
 * `inlineBundles` is false (then OLM unpacks each bundle's image). OLM's catalog
 * operator runs in a pod, so the host must be one it reaches: the real node's address.
 */
export async function serveCatalog(
  catalogDir: string,
  logPath: string,
  host: string,
  options: { readonly inlineBundles?: boolean } = {},
): Promise<CatalogServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    [
      opkitBin,
      'catalog',
      'serve',
      catalogDir,
      '--host',
      host,
      '--port',
      String(port),
      ...((options.inlineBundles ?? true) ? ['--inline-bundles'] : []),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const log = createWriteStream(logPath);
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const address = `${host}:${port}`;
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
  /** …a catalog image OLM runs as a registry pod… */
  readonly image?: string;
  /** …and with it, the catalog's directory in the image, for OLM to extract and serve with its opm. */
  readonly extractContent?: string;
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
    ...(options.extractContent !== undefined ? ['--extract-content', options.extractContent] : []),
    '--kubeconfig',
    options.kubeconfigPath,
    '--timeout',
    options.timeout ?? '120s',
  ]);
}
