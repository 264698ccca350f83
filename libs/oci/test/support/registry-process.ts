import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** Whether every named executable is on PATH. */
export function haveTools(...tools: string[]): boolean {
  return tools.every((tool) => {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  });
}

/** Token authentication settings of the registry (distribution `auth.token`). */
export interface TokenAuthConfig {
  readonly realm: string;
  readonly service: string;
  readonly issuer: string;
  readonly rootCertBundle: string;
}

/** A `docker-registry` process on loopback. */
export interface RunningRegistry {
  /** `127.0.0.1:<port>`. */
  readonly host: string;
  stop(): Promise<void>;
}

/** A TCP port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

/**
 * Starts Debian's `docker-registry` (distribution 2.x) with a config written to `dir`, storage under `dir`,
 * and optional htpasswd or token auth; resolves once `GET /v2/` answers (200, or 401 with auth). With
 * `storageRedirect`, blob downloads are redirected to that base URL (distribution's `redirect` storage
 * middleware), as registries send them to a storage service.
 */
export async function startRegistry(
  dir: string,
  auth: { readonly htpasswd?: string; readonly token?: TokenAuthConfig } = {},
  options: { readonly storageRedirect?: string } = {},
): Promise<RunningRegistry> {
  const port = await freePort();
  const host = `127.0.0.1:${port}`;
  await mkdir(join(dir, 'data'), { recursive: true });
  const lines = [
    'version: 0.1',
    'log:',
    '  level: error',
    '  accesslog:',
    '    disabled: true',
    'storage:',
    '  filesystem:',
    `    rootdirectory: ${join(dir, 'data')}`,
    'http:',
    `  addr: ${host}`,
    `  secret: ${randomBytes(16).toString('hex')}`,
  ];
  if (auth.htpasswd !== undefined) {
    lines.push('auth:', '  htpasswd:', '    realm: basic-realm', `    path: ${auth.htpasswd}`);
  }
  if (auth.token !== undefined) {
    const t = auth.token;
    lines.push(
      'auth:',
      '  token:',
      `    realm: ${t.realm}`,
      `    service: ${t.service}`,
      `    issuer: ${t.issuer}`,
      `    rootcertbundle: ${t.rootCertBundle}`,
    );
  }
  if (options.storageRedirect !== undefined) {
    lines.push(
      'middleware:',
      '  storage:',
      '    - name: redirect',
      '      options:',
      `        baseurl: ${options.storageRedirect}`,
    );
  }
  const config = join(dir, 'config.yml');
  await writeFile(config, `${lines.join('\n')}\n`);
  const child = spawn('docker-registry', ['serve', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`docker-registry exited: ${stderr.trim()}`);
    const status = await probe(`http://${host}/v2/`);
    if (status === 200 || status === 401) break;
    if (Date.now() > deadline) {
      await stop(child, exited);
      throw new Error(`docker-registry on ${host} did not become ready: ${stderr.trim()}`);
    }
    await sleep(50);
  }
  return { host, stop: () => stop(child, exited) };
}

async function stop(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  await Promise.race([exited, sleep(3000).then(() => child.kill('SIGKILL'))]);
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
