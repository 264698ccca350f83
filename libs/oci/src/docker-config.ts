// Registry credentials where `docker login` and `podman login` (containers/image, which opm also reads) keep
// them: `auths` entries (base64 `user:password` or an identity token), per-registry `credHelpers` and a
// default `credsStore`, the helpers run as docker runs them; and, last, the legacy `~/.dockercfg` (docker before
// 1.7: a top-level map of registry to `{auth, email}`), which containers/image reads still (docker, when it has no
// config.json).
import { execFile } from 'node:child_process';
import { open } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Credentials } from './auth.js';
import { CredentialsError } from './errors.js';
import { DOCKER_HUB } from './reference.js';

/** The key docker stores Docker Hub's credentials under, and the server URL its helpers are asked for. */
export const DOCKER_HUB_AUTH_KEY = 'https://index.docker.io/v1/';

/** A login file larger than this is refused rather than read into memory. */
const MAX_CONFIG_BYTES = 1024 * 1024;
/** A credential helper's answer larger than this is refused. */
const MAX_HELPER_OUTPUT_BYTES = 64 * 1024;
const HELPER_TIMEOUT_MS = 30_000;

/** Where to look for login files; defaults are the process's environment and home directory. */
export interface DockerCredentialOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly homeDir?: string;
}

interface AuthEntry {
  readonly auth?: string;
  readonly username?: string;
  readonly password?: string;
  readonly identitytoken?: string;
}

interface LoginFile {
  readonly path: string;
  /** The pre-1.7 `~/.dockercfg` format: entries at the top level, no `auths` wrapper, no helpers. */
  readonly legacy: boolean;
  readonly auths: ReadonlyMap<string, AuthEntry>;
  readonly credHelpers: ReadonlyMap<string, string>;
  readonly credsStore?: string;
}

/** docker's login file before 1.7, in the home directory (`$DOCKER_CONFIG` does not move it). */
const LEGACY_DOCKER_CONFIG = '.dockercfg';

/**
 * The login files in the order containers/image reads them (the first that knows a registry answers):
 * `$REGISTRY_AUTH_FILE`, `$XDG_RUNTIME_DIR/containers/auth.json`, `$XDG_CONFIG_HOME/containers/auth.json`
 * (default `~/.config`), docker's `$DOCKER_CONFIG/config.json` (default `~/.docker`), then the legacy
 * `~/.dockercfg`.
 */
export function loginFilePaths(options: DockerCredentialOptions = {}): string[] {
  return loginFiles(options).map((f) => f.path);
}

/** {@link loginFilePaths}, each marked with its format. */
function loginFiles(options: DockerCredentialOptions): Array<{ path: string; legacy: boolean }> {
  const env = options.env ?? process.env;
  const home = options.homeDir ?? homedir();
  const files = [
    { path: env.REGISTRY_AUTH_FILE, legacy: false },
    {
      path: env.XDG_RUNTIME_DIR ? join(env.XDG_RUNTIME_DIR, 'containers', 'auth.json') : undefined,
      legacy: false,
    },
    { path: join(env.XDG_CONFIG_HOME || join(home, '.config'), 'containers', 'auth.json'), legacy: false },
    { path: join(env.DOCKER_CONFIG || join(home, '.docker'), 'config.json'), legacy: false },
    { path: join(home, LEGACY_DOCKER_CONFIG), legacy: true },
  ];
  const seen = new Set<string>();
  return files.flatMap(({ path, legacy }) => {
    if (path === undefined || path === '' || seen.has(path)) return [];
    seen.add(path);
    return [{ path, legacy }];
  });
}

/**
 * Credentials by registry (`host[:port]` as references name it) from the login files of docker and podman,
 * for {@link RegistryClientOptions.credentials}. Files are read in order when first needed, and only until
 * one knows the registry (as containers/image reads them: a malformed file after the one that answers is not
 * an error); helper answers are kept per registry. A registry none of them knows gets no credentials
 * (anonymous access).
 */
export function dockerCredentials(
  options: DockerCredentialOptions = {},
): (registry: string, repository?: string) => Promise<Credentials | undefined> {
  const files = new Map<string, Promise<LoginFile | undefined>>();
  const read = (path: string, legacy: boolean) => {
    let file = files.get(path);
    if (file === undefined) {
      file = readLoginFile(path, legacy);
      files.set(path, file);
    }
    return file;
  };
  const answers = new Map<string, Promise<Credentials | undefined>>();
  const env = options.env ?? process.env;
  return (registry, repository = '') => {
    const key = `${registry}/${repository}`;
    let answer = answers.get(key);
    if (answer === undefined) {
      const loaders = loginFiles(options).map(
        ({ path, legacy }) =>
          () =>
            read(path, legacy),
      );
      answer = lookup(loaders, registry, repository, env);
      answers.set(key, answer);
    }
    return answer;
  };
}

async function lookup(
  files: readonly (() => Promise<LoginFile | undefined>)[],
  registry: string,
  repository: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Credentials | undefined> {
  const server = registry === DOCKER_HUB ? DOCKER_HUB_AUTH_KEY : registry;
  for (const load of files) {
    const file = await load();
    if (file === undefined) continue;
    const helper = file.credHelpers.get(registry) ?? file.credHelpers.get(server);
    if (helper !== undefined) return runHelper(helper, server, env);
    const entry = authEntry(file, registry, repository);
    if (entry !== undefined) {
      const credentials = decodeEntry(file.path, file.legacy, registry, entry);
      if (credentials !== undefined) return credentials;
    }
    // With a credentials store, the file's `auths` only mark which registries the store holds.
    if (file.credsStore !== undefined) {
      const stored = await runHelper(file.credsStore, server, env);
      if (stored !== undefined) return stored;
    }
  }
  return undefined;
}

/**
 * The `auths` entry of a repository: podman's keys may name a namespace (`quay.io/acme`), the longest one
 * that holds the repository wins; then the registry's own entry, keyed `host`, `https://host` or
 * `https://host/v1/` (docker's forms, whose path names no namespace).
 */
function authEntry(file: LoginFile, registry: string, repository: string): AuthEntry | undefined {
  const hosts =
    registry === DOCKER_HUB ? [DOCKER_HUB, 'index.docker.io', 'registry-1.docker.io'] : [registry];
  const parts = repository === '' ? [] : repository.split('/');
  for (let n = parts.length; n > 0; n--) {
    const namespace = parts.slice(0, n).join('/');
    for (const host of hosts) {
      const entry = file.auths.get(`${host}/${namespace}`);
      if (entry !== undefined) return entry;
    }
  }
  for (const [key, entry] of file.auths) {
    const schemeless = !/^https?:\/\//.test(key);
    if (schemeless && key.includes('/')) continue; // a namespace entry, matched above
    const host = key.replace(/^https?:\/\//, '').replace(/\/.*$/, '');
    if (hosts.includes(host)) return entry;
  }
  return undefined;
}

function decodeEntry(
  path: string,
  legacy: boolean,
  registry: string,
  entry: AuthEntry,
): Credentials | undefined {
  let username = entry.username ?? '';
  let password = entry.password ?? '';
  if (entry.auth !== undefined && entry.auth !== '') {
    const decoded = Buffer.from(entry.auth, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0)
      throw new CredentialsError(
        `${path}: ${legacy ? '' : 'auths'}["${registry}"].auth is not base64 of user:password`,
      );
    username = decoded.slice(0, colon);
    password = decoded.slice(colon + 1);
  }
  const identityToken = entry.identitytoken === '' ? undefined : entry.identitytoken;
  if (identityToken !== undefined) return { username, password, identityToken };
  return username === '' && password === '' ? undefined : { username, password };
}

async function readLoginFile(path: string, legacy: boolean): Promise<LoginFile | undefined> {
  let text: string;
  try {
    const handle = await open(path, 'r');
    try {
      const { size } = await handle.stat();
      if (size > MAX_CONFIG_BYTES)
        throw new CredentialsError(`${path}: ${size} bytes, more than a login file's ${MAX_CONFIG_BYTES}`);
      const buffer = Buffer.alloc(size);
      const { bytesRead } = await handle.read(buffer, 0, size, 0);
      text = buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (error instanceof CredentialsError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new CredentialsError(`${path}: cannot read (${(error as Error).message})`, { cause: error });
  }
  if (text.trim() === '') return undefined;
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new CredentialsError(`${path}: not JSON (${(error as Error).message})`, { cause: error });
  }
  if (!isObject(doc)) throw new CredentialsError(`${path}: not a JSON object`);
  // The legacy file is the `auths` map itself (its entries' `email` is not used); it names no helpers.
  const entries = legacy ? doc : field(path, doc, 'auths');
  const where = legacy ? '' : 'auths';
  const auths = new Map<string, AuthEntry>();
  for (const [key, value] of Object.entries(entries)) {
    if (!isObject(value)) throw new CredentialsError(`${path}: ${where}["${key}"] is not an object`);
    for (const name of ['auth', 'username', 'password', 'identitytoken'] as const) {
      if (value[name] !== undefined && typeof value[name] !== 'string')
        throw new CredentialsError(`${path}: ${where}["${key}"].${name} is not a string`);
    }
    auths.set(key, value as AuthEntry);
  }
  if (legacy) return { path, legacy, auths, credHelpers: new Map() };
  const credHelpers = new Map<string, string>();
  for (const [key, value] of Object.entries(field(path, doc, 'credHelpers'))) {
    if (typeof value !== 'string' || !isHelperName(value))
      throw new CredentialsError(`${path}: credHelpers["${key}"] is not a helper name`);
    credHelpers.set(key, value);
  }
  const store = doc.credsStore;
  if (store !== undefined && store !== '' && (typeof store !== 'string' || !isHelperName(store)))
    throw new CredentialsError(`${path}: credsStore is not a helper name`);
  return {
    path,
    legacy,
    auths,
    credHelpers,
    ...(typeof store === 'string' && store !== '' ? { credsStore: store } : {}),
  };
}

function field(path: string, doc: Record<string, unknown>, name: string): Record<string, unknown> {
  const value = doc[name];
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw new CredentialsError(`${path}: ${name} is not an object`);
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Helper names become part of a program name: no paths, no options. */
function isHelperName(name: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(name);
}

/**
 * Runs `docker-credential-<helper> get` with the server URL on stdin, as docker does; the answer is JSON with
 * `Username` and `Secret` (`<token>` as the user name marks an identity token). "Not found" is no credentials.
 */
function runHelper(
  helper: string,
  server: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Credentials | undefined> {
  const program = `docker-credential-${helper}`;
  return new Promise((resolve, reject) => {
    const child = execFile(
      program,
      ['get'],
      { env: { ...env }, timeout: HELPER_TIMEOUT_MS, maxBuffer: MAX_HELPER_OUTPUT_BYTES, encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code === 'ENOENT') {
            reject(new CredentialsError(`credential helper ${program} (for ${server}) is not on PATH`));
            return;
          }
          const said = `${stdout}`.trim() || `${stderr}`.trim();
          // docker's helpers say this (exit code 1) for a server they hold nothing for.
          if (/credentials not found/i.test(said)) {
            resolve(undefined);
            return;
          }
          reject(
            new CredentialsError(
              `credential helper ${program} failed for ${server}: ${said.split('\n')[0] || error.message}`,
            ),
          );
          return;
        }
        let answer: unknown;
        try {
          answer = JSON.parse(stdout);
        } catch {
          reject(new CredentialsError(`credential helper ${program} answered non-JSON for ${server}`));
          return;
        }
        if (!isObject(answer) || typeof answer.Secret !== 'string') {
          reject(
            new CredentialsError(`credential helper ${program} answered without a Secret for ${server}`),
          );
          return;
        }
        const username = typeof answer.Username === 'string' ? answer.Username : '';
        resolve(
          username === '<token>'
            ? { username: '', password: '', identityToken: answer.Secret }
            : { username, password: answer.Secret },
        );
      },
    );
    child.stdin?.end(server);
  });
}
