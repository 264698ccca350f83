import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildImage } from './image.js';
import { layerFromEntries } from './layer.js';
import { bypassesProxy, proxyFor, proxyFromEnvironment } from './proxy.js';
import { RegistryClient } from './registry-client.js';
import { FakeRegistry } from './testing/fake-registry.js';

describe('NO_PROXY, as Go reads it', () => {
  it.each([
    // [NO_PROXY, host, port, reached directly]
    ['', 'localhost', '5000', true],
    ['', '127.0.0.1', '5000', true],
    ['', '::1', '443', true],
    ['', 'quay.io', '443', false],
    ['*', 'quay.io', '443', true],
    ['quay.io', 'quay.io', '443', true],
    ['quay.io', 'cdn.quay.io', '443', true],
    ['quay.io', 'notquay.io', '443', false],
    ['.example.com', 'example.com', '443', false],
    ['.example.com', 'registry.example.com', '443', true],
    ['*.example.com', 'example.com', '443', false],
    ['*.example.com', 'a.b.example.com', '443', true],
    ['example.com:5000', 'example.com', '5000', true],
    ['example.com:5000', 'example.com', '443', false],
    [' other.org , Example.COM ', 'registry.example.com', '443', true],
    ['10.0.0.0/8', '10.1.2.3', '443', true],
    ['10.0.0.0/8', '11.1.2.3', '443', false],
    ['10.0.0.0/8', 'ten.example', '443', false],
    ['192.168.1.1', '192.168.1.1', '5000', true],
    ['192.168.1.1:5000', '192.168.1.1', '443', false],
    ['2001:db8::/32', '2001:db8::1', '443', true],
    ['[2001:db8::5]:5000', '[2001:db8::5]', '5000', true],
    ['2001:db8::5', '2001:db8::6', '443', false],
  ] as const)('NO_PROXY=%j: %s port %s direct=%s', (noProxy, host, port, direct) => {
    expect(bypassesProxy(noProxy, host, port)).toBe(direct);
  });

  it('reads upper case first, takes a proxy without scheme as http://, and refuses other schemes', () => {
    const settings = proxyFromEnvironment({
      HTTPS_PROXY: 'proxy.corp:3128',
      https_proxy: 'http://ignored:1',
      http_proxy: 'http://plain:8080',
      no_proxy: 'internal.corp',
    });
    expect(settings.httpsProxy?.href).toBe('http://proxy.corp:3128/');
    expect(settings.httpProxy?.href).toBe('http://plain:8080/');
    expect(proxyFor(settings, new URL('https://quay.io/v2/'))?.host).toBe('proxy.corp:3128');
    expect(proxyFor(settings, new URL('http://quay.io/v2/'))?.host).toBe('plain:8080');
    expect(proxyFor(settings, new URL('https://registry.internal.corp/v2/'))).toBeUndefined();
    expect(proxyFor(proxyFromEnvironment({}), new URL('https://quay.io/v2/'))).toBeUndefined();
    expect(() => proxyFromEnvironment({ HTTPS_PROXY: 'socks5://proxy:1080' })).toThrow(
      'HTTPS_PROXY="socks5://proxy:1080": only http:// proxies are supported',
    );
  });
});

/**
 * An http proxy on loopback: tunnels CONNECT and forwards absolute-form requests, every one to 127.0.0.1
 * whatever host it names (so a name nothing resolves is reached only through it), and records what it saw.
 */
async function startProxy(): Promise<{
  url: string;
  tunnels: string[];
  forwarded: string[];
  authorizations: Array<string | undefined>;
  close: () => Promise<void>;
}> {
  const tunnels: string[] = [];
  const forwarded: string[] = [];
  const authorizations: Array<string | undefined> = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const target = new URL(req.url ?? '/');
    forwarded.push(`${req.method} ${target.href}`);
    authorizations.push(req.headers['proxy-authorization']);
    const { 'proxy-authorization': _, ...headers } = req.headers;
    const upstream = http.request(
      {
        host: '127.0.0.1',
        port: target.port,
        method: req.method,
        path: target.pathname + target.search,
        headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  server.on('connect', (req: http.IncomingMessage, client: Socket, head: Buffer) => {
    tunnels.push(req.url ?? '');
    authorizations.push(req.headers['proxy-authorization']);
    const port = Number((req.url ?? '').split(':').pop());
    const upstream = connect(port, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => s.destroy());
      s.on('close', () => sockets.delete(s));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    tunnels,
    forwarded,
    authorizations,
    close: async () => {
      for (const s of sockets) s.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const image = buildImage([layerFromEntries([{ path: 'hello.txt', content: 'through the proxy' }])]);
// `.test` is reserved (RFC 2606): nothing resolves it, only the proxy reaches it.
const NAME = 'registry.test';

describe('requests through an http proxy', () => {
  const dir = mkdtempSync(join(tmpdir(), 'oci-proxy-'));
  let tls: { key: string; cert: string };
  const cleanup: Array<() => Promise<void>> = [];
  beforeAll(() => {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        `/CN=${NAME}`,
        '-addext',
        `subjectAltName=DNS:${NAME}`,
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    tls = {
      key: readFileSync(join(dir, 'key.pem'), 'utf8'),
      cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
    };
  });
  afterEach(async () => {
    for (const f of cleanup.splice(0)) await f();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('tunnels https with CONNECT (TLS to the registry inside) and sends Proxy-Authorization', async () => {
    const registry = await FakeRegistry.start({ tls });
    const proxy = await startProxy();
    cleanup.push(() => registry.stop(), proxy.close);
    const port = registry.host.split(':')[1];
    const proxyWithUser = proxy.url.replace('http://', 'http://me:p%40ss@');
    const client = new RegistryClient({
      ca: tls.cert,
      proxy: proxyFromEnvironment({ HTTPS_PROXY: proxyWithUser, NO_PROXY: 'elsewhere.test' }),
    });
    cleanup.push(async () => client.close());
    await client.push(image, `${NAME}:${port}/team/app:v1`);
    expect((await client.pull(`${NAME}:${port}/team/app:v1`)).digest).toBe(image.digest);
    // Kept-alive tunnels: far fewer CONNECTs than requests, each to the registry's name and port.
    expect(proxy.tunnels.length).toBeGreaterThan(0);
    expect(proxy.tunnels.length).toBeLessThan(registry.requests.length);
    expect(new Set(proxy.tunnels)).toEqual(new Set([`${NAME}:${port}`]));
    expect(new Set(proxy.authorizations)).toEqual(
      new Set([`Basic ${Buffer.from('me:p@ss').toString('base64')}`]),
    );
    expect(proxy.forwarded).toEqual([]);
  });

  it('sends plain http in absolute form, and goes direct for NO_PROXY hosts', async () => {
    const registry = await FakeRegistry.start();
    const proxy = await startProxy();
    cleanup.push(() => registry.stop(), proxy.close);
    const port = registry.host.split(':')[1];
    const client = new RegistryClient({
      plainHttp: true,
      proxy: proxyFromEnvironment({ http_proxy: proxy.url }),
    });
    cleanup.push(async () => client.close());
    await client.push(image, `${NAME}:${port}/team/app:v1`);
    expect(proxy.forwarded[0]).toMatch(
      new RegExp(`^HEAD http://${NAME.replace('.', '\\.')}:${port}/v2/team/app/blobs/sha256:`),
    );
    expect(proxy.forwarded).toHaveLength(registry.requests.length);
    expect(proxy.tunnels).toEqual([]);
    expect(proxy.authorizations.every((a) => a === undefined)).toBe(true);

    // Loopback is always direct, as in Go: the proxy sees nothing more.
    const seen = proxy.forwarded.length;
    expect((await client.pull(`${registry.host}/team/app:v1`)).digest).toBe(image.digest);
    expect(proxy.forwarded).toHaveLength(seen);
  });

  it('names the proxy when it refuses the tunnel', async () => {
    const proxy = http.createServer();
    proxy.on('connect', (_req, socket: Socket) =>
      socket.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n'),
    );
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => new Promise<void>((resolve) => proxy.close(() => resolve())));
    const address = proxy.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const client = new RegistryClient({
      retries: 0,
      proxy: { httpsProxy: new URL(`http://127.0.0.1:${port}`) },
    });
    cleanup.push(async () => client.close());
    await expect(client.pull(`${NAME}/team/app:v1`)).rejects.toThrow(
      `proxy 127.0.0.1:${port} refused CONNECT ${NAME}:443 (407)`,
    );
  });
});
