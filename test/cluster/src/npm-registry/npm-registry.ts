import { type ChildProcess, execFile, fork } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { workspaceRoot as defaultWorkspaceRoot, workspaceFile } from '../released-data.js';
import { ensureWorkspaceBuilt } from '../workspace-build.js';
import { npmCacheDirectory } from './npm-cache.js';
import { seedStorage } from './seed-storage.js';

/** A package `publishWorkspace` published. */
export interface PublishedPackage {
  readonly name: string;
  readonly version: string;
  /** The package's directory in the workspace. */
  readonly directory: string;
}

/** A private npm registry (Verdaccio) on loopback, with no uplink. */
export interface NpmRegistry {
  /** `http://127.0.0.1:<port>/` */
  readonly url: string;
  /** A npm userconfig file (`--userconfig`) that sends every request to this registry, with its token. */
  readonly npmrc: string;
  /**
   * Publishes each of the workspace's publishable packages to this registry, from its build: made here outside
   * Nx, made by the test target's `dependsOn` under it.
   */
  publishWorkspace(): Promise<PublishedPackage[]>;
  /** Stops the registry and removes its storage. */
  stop(): Promise<void>;
}

export interface StartNpmRegistryOptions {
  /** The workspace whose package-lock.json seeds the registry and whose packages are published. */
  readonly workspaceRoot?: string;
  /** npm's cache to take the lock's tarballs from; `npm config get cache` by default. */
  readonly npmCache?: string;
  readonly onProgress?: (line: string) => void;
}

/** Thrown when the registry cannot start or a package cannot be published. */
export class NpmRegistryError extends Error {
  override readonly name = 'NpmRegistryError';
}

const USER = 'opkit-test';
const START_TIMEOUT_MS = 60_000;
const run = promisify(execFile);

/** The environment of a child npm: none of the `npm_*` settings an enclosing `npm test` exports. */
function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!/^npm_/i.test(key)) env[key] = value;
  return { ...env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
}

function verdaccioConfig(dir: string): string {
  const config = join(dir, 'config.yaml');
  writeFileSync(
    config,
    [
      `storage: ${JSON.stringify(join(dir, 'storage'))}`,
      'auth:',
      '  htpasswd:',
      `    file: ${JSON.stringify(join(dir, 'htpasswd'))}`,
      '    max_users: 1',
      // JWT tokens: verifying one is a signature check, where the legacy token has every request check the
      // password against its bcrypt hash.
      'security:',
      '  api:',
      '    jwt:',
      '      sign:',
      '        expiresIn: 1d',
      // No uplinks: every package is local, nothing is fetched from anywhere else.
      'uplinks: {}',
      'packages:',
      "  '**':",
      '    access: $all',
      '    publish: $authenticated',
      '    unpublish: $authenticated',
      'server:',
      '  keepAliveTimeout: 5',
      'web:',
      '  enable: false',
      'max_body_size: 200mb',
      'log: { type: stdout, format: json, level: error }',
      '',
    ].join('\n'),
  );
  return config;
}

/** Ends a child: SIGTERM, SIGKILL after 5 s; resolves once it closed (or at once when it already had). */
export async function killChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const closed = new Promise((resolve) => child.once('close', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await closed;
  clearTimeout(timer);
}

/** The port of Verdaccio's one IPC message, `{ port }`; undefined for anything else. */
export function reportedPort(message: unknown): number | undefined {
  if (typeof message !== 'object' || message === null || !('port' in message)) return undefined;
  const { port } = message;
  return typeof port === 'number' && Number.isInteger(port) && port > 0 && port < 65_536 ? port : undefined;
}

/**
 * Starts Verdaccio in a process of its own and resolves with its port. On every failure the child is killed
 * and closed before the promise rejects.
 */
export function startVerdaccio(
  config: string,
  log: string,
  server = fileURLToPath(new URL('./verdaccio-server.mjs', import.meta.url)),
): Promise<{ child: ChildProcess; port: number }> {
  let verdaccio: string;
  try {
    verdaccio = createRequire(import.meta.url).resolve('verdaccio/package.json');
  } catch {
    throw new NpmRegistryError(
      'startNpmRegistry needs the npm package verdaccio 6: npm install -D verdaccio@^6',
    );
  }
  const child = fork(server, [config], {
    cwd: dirname(verdaccio),
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    execArgv: [],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8192);
    // The log is a courtesy: output that arrives after stop() removed its directory is dropped, not thrown
    // from a stream listener.
    try {
      writeFileSync(log, output);
    } catch {}
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (reason: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      killChild(child).then(() => reject(new NpmRegistryError(`${reason}: ${output.trim()}`)));
    };
    const timer = setTimeout(
      () => fail(`Verdaccio did not start within ${START_TIMEOUT_MS / 1000} s`),
      START_TIMEOUT_MS,
    );
    child.on('error', (error) => fail(`Verdaccio failed: ${error.message}`));
    child.once('message', (message: unknown) => {
      const port = reportedPort(message);
      if (port === undefined) return fail(`Verdaccio reported no port (${JSON.stringify(message)})`);
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ child, port });
    });
    child.once('exit', (code, signal) => fail(`Verdaccio exited with ${code ?? signal} before it listened`));
  });
}

/** Adds the registry's one user and returns its token. */
async function createUser(url: string): Promise<string> {
  const response = await fetch(new URL(`-/user/org.couchdb.user:${USER}`, url), {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      name: USER,
      password: `pw-${process.pid}-${Date.now()}`,
      type: 'user',
      roles: [],
    }),
    signal: AbortSignal.timeout(30_000),
  });
  const body = (await response.json()) as { token?: string; error?: string };
  if (!response.ok || body.token === undefined) {
    throw new NpmRegistryError(
      `the registry refused its user (HTTP ${response.status}): ${body.error ?? ''}`,
    );
  }
  return body.token;
}

interface WorkspacePackage {
  readonly name: string;
  readonly version: string;
  readonly directory: string;
  readonly project: string;
}

/** The workspace's packages that `nx release` releases and that are not private. */
export function publishablePackages(root: string): WorkspacePackage[] {
  const nx = JSON.parse(readFileSync(workspaceFile(root, 'nx.json'), 'utf8')) as {
    release?: { projects?: string[] };
  };
  const released = new Set(nx.release?.projects ?? []);
  const { workspaces = [] } = JSON.parse(readFileSync(workspaceFile(root, 'package.json'), 'utf8')) as {
    workspaces?: string[];
  };
  const found: WorkspacePackage[] = [];
  for (const pattern of workspaces) {
    const parent = join(root, pattern.replace(/\/\*$/, ''));
    for (const entry of readdirNames(parent)) {
      const directory = join(parent, entry);
      const file = join(directory, 'package.json');
      if (!existsSync(file)) continue;
      const manifest = readManifest(file);
      const project = manifest.nx?.name ?? manifest.name;
      if (!manifest.private && released.has(project)) {
        found.push({ name: manifest.name, version: manifest.version, directory, project });
      }
    }
  }
  return found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

interface Manifest {
  readonly name: string;
  readonly version: string;
  readonly private?: boolean;
  readonly nx?: { readonly name?: string };
}

/** A workspace package's package.json; a malformed one is refused, naming the file and field. */
function readManifest(file: string): Manifest {
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new NpmRegistryError(`${file}: not JSON: ${(error as Error).message}`);
  }
  if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest)) {
    throw new NpmRegistryError(`${file}: not a JSON object`);
  }
  const { name, version } = manifest as Record<string, unknown>;
  if (typeof name !== 'string' || name === '') throw new NpmRegistryError(`${file}: "name" is not a string`);
  if (typeof version !== 'string' || version === '') {
    throw new NpmRegistryError(`${file}: "version" is not a string`);
  }
  return manifest as Manifest;
}

function readdirNames(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * Starts a private npm registry for tests: Verdaccio on 127.0.0.1 on a free port, its storage in a temporary
 * directory that `stop()` removes, no uplink. It serves every third-party package of the workspace's
 * package-lock.json, seeded from npm's cache (never fetched), and what is published to it.
 */
export async function startNpmRegistry(options: StartNpmRegistryOptions = {}): Promise<NpmRegistry> {
  const root = options.workspaceRoot ?? defaultWorkspaceRoot;
  const progress = options.onProgress ?? (() => {});
  const dir = mkdtempSync(join(tmpdir(), 'opkit-npm-registry-'));
  let child: ChildProcess | undefined;
  const stop = async () => {
    if (child !== undefined) await killChild(child);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const started = Date.now();
    const cacheDir = options.npmCache ?? npmCacheDirectory(root);
    const count = seedStorage({
      lockfile: workspaceFile(root, 'package-lock.json'),
      workspaceRoot: root,
      storage: join(dir, 'storage'),
      cacheDir,
    });
    progress(
      `npm registry: ${count} package versions of package-lock.json from ${cacheDir} in ${Date.now() - started} ms`,
    );
    const verdaccio = await startVerdaccio(verdaccioConfig(dir), join(dir, 'verdaccio.log'));
    child = verdaccio.child;
    const url = `http://127.0.0.1:${verdaccio.port}/`;
    const token = await createUser(url);
    const npmrc = join(dir, 'npmrc');
    const host = `//127.0.0.1:${verdaccio.port}/`;
    // Unscoped and @opkit packages go to this registry, and the token is sent only to it.
    writeFileSync(
      npmrc,
      `registry=${url}\n@opkit:registry=${url}\n${host}:_authToken=${token}\nupdate-notifier=false\nfund=false\naudit=false\n`,
    );
    progress(`npm registry: listening on ${url}`);

    const publishWorkspace = async (): Promise<PublishedPackage[]> => {
      const packages = publishablePackages(root);
      try {
        // Under Nx (the test target) they are only checked: its `dependsOn` built them.
        await ensureWorkspaceBuilt(root, packages, {
          env: npmEnv(),
          onProgress: (line) => progress(`npm registry: ${line}`),
        });
      } catch (error) {
        throw new NpmRegistryError((error as Error).message, { cause: error });
      }
      // `npm publish` per package, not `nx release publish`: the packages' `publishConfig.provenance` makes the
      // latter's npm publish fail outside a CI that can attest, and publishing here must not need one.
      return Promise.all(
        packages.map(async (pkg) => {
          try {
            await run(
              'npm',
              ['publish', '--provenance=false', '--registry', url, '--userconfig', npmrc, '--tag', 'latest'],
              {
                cwd: pkg.directory,
                env: npmEnv(),
                maxBuffer: 64 * 1024 * 1024,
              },
            );
          } catch (error) {
            const { stderr = '' } = error as { stderr?: string };
            const reason =
              stderr.split('\n').find((line) => /npm error (?!code)/.test(line)) ?? stderr.trim();
            throw new NpmRegistryError(`publishing ${pkg.name}@${pkg.version} failed: ${reason}`);
          }
          progress(`npm registry: published ${pkg.name}@${pkg.version}`);
          return { name: pkg.name, version: pkg.version, directory: pkg.directory };
        }),
      );
    };
    return { url, npmrc, publishWorkspace, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
