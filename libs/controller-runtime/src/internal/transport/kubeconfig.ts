import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import type { RequestOptions } from 'node:https';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { ConnectionError } from '../../errors/errors.js';

// The kubeconfig, read by the runtime itself: client-node's KubeConfig brings its whole HTTP and WebSocket stack
// into an operator's memory (tens of MiB) for the few fields a connection needs.

/**
 * What the transport needs of a kubeconfig: the API server's URL, and the TLS material and credentials of a
 * connection. client-node's `KubeConfig` has this shape too, so either can be given.
 */
export interface ClusterConnection {
  getCurrentCluster(): { readonly server: string } | null;
  /** Sets `ca`, `cert`, `key`, `rejectUnauthorized`, `servername` and the `Authorization` header. */
  applyToHTTPSOptions(options: RequestOptions): Promise<void>;
}

/** A loaded kubeconfig: a connection, and what its current context says besides. */
export interface LoadedKubeconfig extends ClusterConnection {
  getCurrentCluster(): { readonly server: string };
  /** The current context's namespace (the service account's in a pod), when it names one. */
  readonly namespace?: string;
  /** Where it came from, for messages. */
  readonly source: string;
}

/**
 * Loads `path`; without it `$KUBECONFIG` (its files merged, the first to name an entry wins), else
 * `~/.kube/config`, else the pod's service account — the order client-node and kubectl follow.
 *
 * @throws KubeconfigError naming the file and entry that cannot be used
 */
export function loadKubeConfig(path?: string): LoadedKubeconfig {
  return Kubeconfig.load(path);
}

/** A kubeconfig that cannot be used: `message` names the file, the entry and the reason. */
export class KubeconfigError extends ConnectionError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'KubeconfigError';
  }
}

const SERVICE_ACCOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';
/** Larger kubeconfigs are refused before parsing: real ones are a few KiB, with embedded certificates tens. */
const MAX_KUBECONFIG_BYTES = 4 * 1024 * 1024;
const EXEC_TIMEOUT_MS = 60_000;

interface ExecConfig {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: readonly { readonly name: string; readonly value: string }[];
  readonly apiVersion: string;
  readonly installHint?: string;
  readonly provideClusterInfo: boolean;
}

interface Cluster {
  readonly server: string;
  readonly ca?: Buffer;
  readonly insecure: boolean;
  readonly tlsServerName?: string;
}

interface User {
  readonly cert?: Buffer;
  readonly key?: Buffer;
  readonly token?: string;
  readonly tokenFile?: string;
  readonly basic?: { readonly username: string; readonly password: string };
  readonly exec?: ExecConfig;
}

/** What an exec credential plugin handed out, and until when it may be used. */
interface ExecCredential {
  readonly token?: string;
  readonly cert?: Buffer;
  readonly key?: Buffer;
  readonly expires: number;
}

/** A kubeconfig's current context, or the in-cluster service account, ready to connect with. */
export class Kubeconfig implements LoadedKubeconfig {
  #credential: Promise<ExecCredential> | undefined;

  private constructor(
    readonly cluster: Cluster,
    readonly user: User,
    /** Where it came from, for messages. */
    readonly source: string,
    /** The current context's namespace (the service account's in a pod), when it names one. */
    readonly namespace?: string,
  ) {}

  /**
   * Loads `path`; without it `$KUBECONFIG` (its files merged, the first to name an entry wins), else
   * `~/.kube/config`, else the pod's service account — the order client-node and kubectl follow.
   *
   * @throws KubeconfigError naming the file and entry that cannot be used
   */
  static load(path?: string, env: NodeJS.ProcessEnv = process.env): Kubeconfig {
    if (path) return Kubeconfig.fromFiles([path]);
    const fromEnv = (env.KUBECONFIG ?? '').split(delimiter).filter((p) => p !== '');
    if (fromEnv.length > 0) return Kubeconfig.fromFiles(fromEnv);
    const home = join(env.HOME ?? homedir(), '.kube', 'config');
    if (existsSync(home)) return Kubeconfig.fromFiles([home]);
    if (env.KUBERNETES_SERVICE_HOST && env.KUBERNETES_SERVICE_PORT) return Kubeconfig.inCluster(env);
    throw new KubeconfigError(
      'no kubeconfig: give --kubeconfig, set KUBECONFIG, write ~/.kube/config, or run in a pod with a service account',
    );
  }

  /** The pod's service account: the API server from the environment, its CA, and the token the kubelet rotates. */
  static inCluster(env: NodeJS.ProcessEnv = process.env, dir = SERVICE_ACCOUNT): Kubeconfig {
    const host = env.KUBERNETES_SERVICE_HOST ?? '';
    const port = env.KUBERNETES_SERVICE_PORT ?? '';
    if (!host || !port) {
      throw new KubeconfigError(
        'in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set',
      );
    }
    const server = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
    const namespaceFile = join(dir, 'namespace');
    const namespace = existsSync(namespaceFile) ? readFileSync(namespaceFile, 'utf8').trim() : '';
    return new Kubeconfig(
      { server, ca: readFile(join(dir, 'ca.crt'), 'in-cluster CA'), insecure: false },
      { tokenFile: join(dir, 'token') },
      'the service account',
      namespace || undefined,
    );
  }

  static fromFiles(paths: readonly string[]): Kubeconfig {
    const clusters = new Map<string, { entry: Record<string, unknown>; file: string }>();
    const users = new Map<string, { entry: Record<string, unknown>; file: string }>();
    const contexts = new Map<string, Record<string, unknown>>();
    let current = '';
    for (const file of paths) {
      if (!existsSync(file) && paths.length > 1) continue; // KUBECONFIG may list files that do not exist
      const doc = parseKubeconfig(file);
      const each = (key: string, add: (name: string, value: Record<string, unknown>) => void) => {
        const list = doc[key];
        if (list === undefined || list === null) return;
        if (!Array.isArray(list)) throw new KubeconfigError(`${file}: ${key}: expected a list`);
        for (const item of list as Record<string, unknown>[]) {
          if (typeof item?.name !== 'string')
            throw new KubeconfigError(`${file}: ${key}: an entry has no name`);
          const value = item[key.slice(0, -1)];
          if (value !== null && typeof value === 'object') add(item.name, value as Record<string, unknown>);
        }
      };
      each('clusters', (n, v) => clusters.has(n) || clusters.set(n, { entry: v, file }));
      each('users', (n, v) => users.has(n) || users.set(n, { entry: v, file }));
      each('contexts', (n, v) => contexts.has(n) || contexts.set(n, v));
      if (!current && typeof doc['current-context'] === 'string') current = doc['current-context'];
    }
    const where = paths.join(delimiter);
    if (!current) throw new KubeconfigError(`${where}: no current-context`);
    const context = contexts.get(current);
    if (!context) throw new KubeconfigError(`${where}: context "${current}" not found`);
    const clusterName = String(context.cluster ?? '');
    const cluster = clusters.get(clusterName);
    if (!cluster)
      throw new KubeconfigError(`${where}: context "${current}": cluster "${clusterName}" not found`);
    const userName = String(context.user ?? '');
    const user = users.get(userName);
    if (userName && !user)
      throw new KubeconfigError(`${where}: context "${current}": user "${userName}" not found`);
    const namespace =
      typeof context.namespace === 'string' && context.namespace ? context.namespace : undefined;
    return new Kubeconfig(
      readCluster(cluster.entry, cluster.file, clusterName),
      user ? readUser(user.entry, user.file, userName) : {},
      where,
      namespace,
    );
  }

  getCurrentCluster(): { readonly server: string } {
    return { server: this.cluster.server };
  }

  async applyToHTTPSOptions(options: RequestOptions): Promise<void> {
    const { cluster, user } = this;
    if (cluster.ca) options.ca = cluster.ca;
    if (cluster.insecure) options.rejectUnauthorized = false;
    if (cluster.tlsServerName) options.servername = cluster.tlsServerName;
    let { cert, key, token } = user;
    if (user.tokenFile) token = readFile(user.tokenFile, 'token file').toString('utf8').trim();
    if (user.exec) ({ cert = cert, key = key, token = token } = await this.#execCredential(user.exec));
    if (cert) options.cert = cert;
    if (key) options.key = key;
    const authorization = token
      ? `Bearer ${token}`
      : user.basic
        ? `Basic ${Buffer.from(`${user.basic.username}:${user.basic.password}`).toString('base64')}`
        : undefined;
    if (authorization) options.headers = { ...options.headers, authorization };
  }

  /** The plugin's credential, run again only once it has expired (or will within a minute) or failed. */
  async #execCredential(exec: ExecConfig): Promise<ExecCredential> {
    const cached = await this.#credential?.catch(() => undefined);
    if (cached && cached.expires - Date.now() > 60_000) return cached;
    this.#credential = runExecPlugin(exec, this.cluster);
    return await this.#credential;
  }
}

function parseKubeconfig(file: string): Record<string, unknown> {
  let text: string;
  try {
    const bytes = readFileSync(file);
    if (bytes.length > MAX_KUBECONFIG_BYTES) {
      throw new KubeconfigError(
        `${file}: ${bytes.length} bytes, more than a kubeconfig may have (${MAX_KUBECONFIG_BYTES})`,
      );
    }
    text = bytes.toString('utf8');
  } catch (error) {
    if (error instanceof KubeconfigError) throw error;
    throw new KubeconfigError(`${file}: cannot read it: ${(error as Error).message}`, { cause: error });
  }
  let doc: unknown;
  try {
    doc = parse(text, { maxAliasCount: 100 });
  } catch (error) {
    throw new KubeconfigError(`${file}: not YAML: ${(error as Error).message.split('\n')[0]}`, {
      cause: error,
    });
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new KubeconfigError(`${file}: expected a mapping`);
  return doc as Record<string, unknown>;
}

function readFile(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new KubeconfigError(`${what} ${path}: ${(error as Error).message}`, { cause: error });
  }
}

/** An inline (`…-data`, base64) or file value; files are relative to the kubeconfig that names them. */
function material(
  entry: Record<string, unknown>,
  key: string,
  file: string,
  where: string,
): Buffer | undefined {
  const data = entry[`${key}-data`];
  if (typeof data === 'string' && data !== '') return Buffer.from(data, 'base64');
  const path = entry[key];
  if (typeof path !== 'string' || path === '') return undefined;
  return readFile(isAbsolute(path) ? path : join(dirname(file), path), `${where}: ${key}`);
}

function readCluster(entry: Record<string, unknown>, file: string, name: string): Cluster {
  const where = `${file}: cluster "${name}"`;
  const server = entry.server;
  if (typeof server !== 'string' || server === '') throw new KubeconfigError(`${where}: no server`);
  try {
    new URL(server);
  } catch {
    throw new KubeconfigError(`${where}: server "${server}" is not a URL`);
  }
  const ca = material(entry, 'certificate-authority', file, where);
  const tlsServerName = typeof entry['tls-server-name'] === 'string' ? entry['tls-server-name'] : undefined;
  return {
    server,
    insecure: entry['insecure-skip-tls-verify'] === true,
    ...(ca ? { ca } : {}),
    ...(tlsServerName ? { tlsServerName } : {}),
  };
}

function readUser(entry: Record<string, unknown>, file: string, name: string): User {
  const where = `${file}: user "${name}"`;
  if (entry['auth-provider'] !== undefined) {
    throw new KubeconfigError(
      `${where}: auth-provider plugins are not supported; use an exec credential plugin (client.authentication.k8s.io)`,
    );
  }
  const cert = material(entry, 'client-certificate', file, where);
  const key = material(entry, 'client-key', file, where);
  const token = typeof entry.token === 'string' && entry.token !== '' ? entry.token : undefined;
  const tokenFile =
    typeof entry.tokenFile === 'string' && entry.tokenFile !== ''
      ? isAbsolute(entry.tokenFile)
        ? entry.tokenFile
        : join(dirname(file), entry.tokenFile)
      : undefined;
  const basic =
    typeof entry.username === 'string' && typeof entry.password === 'string'
      ? { username: entry.username, password: entry.password }
      : undefined;
  const exec = entry.exec === undefined || entry.exec === null ? undefined : readExec(entry.exec, where);
  return {
    ...(cert ? { cert } : {}),
    ...(key ? { key } : {}),
    ...(token ? { token } : {}),
    ...(tokenFile && !token ? { tokenFile } : {}),
    ...(basic ? { basic } : {}),
    ...(exec ? { exec } : {}),
  };
}

function readExec(value: unknown, where: string): ExecConfig {
  const e = (value ?? {}) as Record<string, unknown>;
  if (typeof e.command !== 'string' || e.command === '')
    throw new KubeconfigError(`${where}: exec: no command`);
  const apiVersion = typeof e.apiVersion === 'string' ? e.apiVersion : '';
  if (!apiVersion.startsWith('client.authentication.k8s.io/')) {
    throw new KubeconfigError(
      `${where}: exec: apiVersion "${apiVersion}" is not client.authentication.k8s.io/*`,
    );
  }
  const env = Array.isArray(e.env)
    ? (e.env as { name?: unknown; value?: unknown }[]).map((v) => ({
        name: String(v.name),
        value: String(v.value ?? ''),
      }))
    : [];
  return {
    command: e.command,
    args: Array.isArray(e.args) ? e.args.map(String) : [],
    env,
    apiVersion,
    ...(typeof e.installHint === 'string' ? { installHint: e.installHint } : {}),
    provideClusterInfo: e.provideClusterInfo === true,
  };
}

/** Runs a client.authentication.k8s.io credential plugin and reads the ExecCredential it prints. */
async function runExecPlugin(exec: ExecConfig, cluster: Cluster): Promise<ExecCredential> {
  const info = {
    apiVersion: exec.apiVersion,
    kind: 'ExecCredential',
    spec: {
      interactive: false,
      ...(exec.provideClusterInfo
        ? {
            cluster: {
              server: cluster.server,
              ...(cluster.tlsServerName ? { 'tls-server-name': cluster.tlsServerName } : {}),
              ...(cluster.insecure ? { 'insecure-skip-tls-verify': true } : {}),
              ...(cluster.ca ? { 'certificate-authority-data': cluster.ca.toString('base64') } : {}),
            },
          }
        : {}),
    },
  };
  let stdout: string;
  try {
    ({ stdout } = await promisify(execFile)(exec.command, [...exec.args], {
      env: {
        ...process.env,
        ...Object.fromEntries(exec.env.map((v) => [v.name, v.value])),
        KUBERNETES_EXEC_INFO: JSON.stringify(info),
      },
      timeout: EXEC_TIMEOUT_MS,
      maxBuffer: 1024 * 1024,
    }));
  } catch (error) {
    const hint = exec.installHint ? `\n${exec.installHint}` : '';
    throw new KubeconfigError(
      `exec plugin ${exec.command}: ${(error as Error).message.split('\n')[0]}${hint}`,
      {
        cause: error,
      },
    );
  }
  let status: Record<string, unknown>;
  try {
    status = ((JSON.parse(stdout) as { status?: unknown }).status ?? {}) as Record<string, unknown>;
  } catch {
    throw new KubeconfigError(`exec plugin ${exec.command}: its output is not an ExecCredential (JSON)`);
  }
  const expiry =
    typeof status.expirationTimestamp === 'string' ? Date.parse(status.expirationTimestamp) : Number.NaN;
  const token = typeof status.token === 'string' && status.token !== '' ? status.token : undefined;
  const cert =
    typeof status.clientCertificateData === 'string' ? Buffer.from(status.clientCertificateData) : undefined;
  const key = typeof status.clientKeyData === 'string' ? Buffer.from(status.clientKeyData) : undefined;
  if (!token && !(cert && key)) {
    throw new KubeconfigError(
      `exec plugin ${exec.command}: its ExecCredential has neither a token nor a client certificate and key`,
    );
  }
  return {
    ...(token ? { token } : {}),
    ...(cert ? { cert } : {}),
    ...(key ? { key } : {}),
    expires: Number.isNaN(expiry) ? Number.POSITIVE_INFINITY : expiry,
  };
}
