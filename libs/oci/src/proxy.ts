// The proxy settings of the environment, read as Go's net/http (golang.org/x/net/http/httpproxy) reads them,
// so opkit goes through the same proxy as docker, opm and kubectl: HTTPS_PROXY for https requests,
// HTTP_PROXY for http ones, NO_PROXY for the hosts that are reached directly.
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { InputInvalidError } from './errors.js';
import { redact } from './redact.js';

/** Where requests go: through a proxy by scheme of the request, except for the hosts `NO_PROXY` names. */
export interface ProxySettings {
  readonly httpProxy?: URL;
  readonly httpsProxy?: URL;
  /** The `NO_PROXY` list as given (comma-separated). */
  readonly noProxy?: string;
}

const env = (vars: Readonly<Record<string, string | undefined>>, name: string): string | undefined =>
  vars[name] || vars[name.toLowerCase()] || undefined;

/**
 * The proxy settings of `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` (upper case first, then lower case). A
 * proxy without a scheme is `http://`; only http proxies are supported.
 *
 * @throws InputInvalidError for a proxy that is no URL or not http.
 */
export function proxyFromEnvironment(
  vars: Readonly<Record<string, string | undefined>> = process.env,
): ProxySettings {
  const parse = (name: string): URL | undefined => {
    const text = env(vars, name);
    if (text === undefined) return undefined;
    let url: URL;
    const shown = JSON.stringify(withoutUserinfo(text));
    try {
      url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`);
    } catch {
      throw new InputInvalidError(redact(`${name}=${shown}: not a proxy URL`));
    }
    if (url.protocol !== 'http:')
      throw new InputInvalidError(redact(`${name}=${shown}: only http:// proxies are supported`));
    return url;
  };
  const httpProxy = parse('HTTP_PROXY');
  const httpsProxy = parse('HTTPS_PROXY');
  const noProxy = env(vars, 'NO_PROXY');
  return {
    ...(httpProxy === undefined ? {} : { httpProxy }),
    ...(httpsProxy === undefined ? {} : { httpsProxy }),
    ...(noProxy === undefined ? {} : { noProxy }),
  };
}

/**
 * A proxy setting as a message may show it: everything up to its last `@` hidden, since a password may hold an
 * unencoded `/`, `?` or `#` that keeps it from parsing as user information.
 */
function withoutUserinfo(text: string): string {
  const at = text.lastIndexOf('@');
  if (at < 0) return text;
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(text)?.[0] ?? '';
  return `${scheme}***${text.slice(at)}`;
}

/** The proxy a request to `url` goes through, or undefined to connect directly. */
export function proxyFor(settings: ProxySettings, url: URL): URL | undefined {
  const proxy = url.protocol === 'https:' ? settings.httpsProxy : settings.httpProxy;
  if (proxy === undefined) return undefined;
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return bypassesProxy(settings.noProxy ?? '', url.hostname, port) ? undefined : proxy;
}

/**
 * Whether `host` (a name or IP, IPv6 in brackets or not) and `port` are reached directly, as Go decides it:
 * localhost and loopback addresses always; `*` everything; an IP or CIDR entry matches addresses; a name
 * matches itself and its subdomains (`.name` and `*.name` only subdomains); an entry with `:port` only that port.
 */
export function bypassesProxy(noProxy: string, host: string, port: string): boolean {
  const name = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const family = isIP(name);
  if (name === 'localhost' || (family !== 0 && isLoopback(name, family))) return true;
  for (const raw of noProxy.split(',')) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return true;
    const cidr = /^(.+)\/(\d{1,3})$/.exec(entry);
    if (cidr !== null) {
      const entryFamily = isIP(cidr[1] ?? '');
      const bits = Number(cidr[2]);
      if (entryFamily !== 0 && family === entryFamily && bits <= (entryFamily === 4 ? 32 : 128)) {
        const list = new BlockList();
        list.addSubnet(cidr[1] ?? '', bits, entryFamily === 4 ? 'ipv4' : 'ipv6');
        if (list.check(name, family === 4 ? 'ipv4' : 'ipv6')) return true;
      }
      continue;
    }
    const [entryHost, entryPort] = splitHostPort(entry);
    if (entryHost === '') continue;
    if (isIP(entryHost) !== 0) {
      if (family !== 0 && sameAddress(entryHost, name) && (entryPort === '' || entryPort === port))
        return true;
      continue;
    }
    const matchesItself = !entryHost.startsWith('.') && !entryHost.startsWith('*.');
    const suffix = entryHost.startsWith('*.')
      ? entryHost.slice(1)
      : matchesItself
        ? `.${entryHost}`
        : entryHost;
    const matches = name.endsWith(suffix) || (matchesItself && name === suffix.slice(1));
    if (matches && (entryPort === '' || entryPort === port)) return true;
  }
  return false;
}

/** `host:port`, `[v6]:port`, or a bare host (an IPv6 address without brackets has no port). */
function splitHostPort(entry: string): [string, string] {
  const bracketed = /^\[([^\]]*)\](?::(\d+))?$/.exec(entry);
  if (bracketed !== null) return [bracketed[1] ?? '', bracketed[2] ?? ''];
  if (isIP(entry) === 6) return [entry, ''];
  const withPort = /^(.*):(\d+)$/.exec(entry);
  return withPort === null ? [entry, ''] : [withPort[1] ?? '', withPort[2] ?? ''];
}

function sameAddress(a: string, b: string): boolean {
  const list = new BlockList();
  const family = isIP(a) === 4 ? 'ipv4' : 'ipv6';
  list.addAddress(a, family);
  return list.check(b, isIP(b) === 4 ? 'ipv4' : 'ipv6');
}

function isLoopback(address: string, family: number): boolean {
  const list = new BlockList();
  list.addSubnet('127.0.0.0', 8, 'ipv4');
  list.addAddress('::1', 'ipv6');
  return list.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** `Proxy-Authorization` for a proxy URL with a user (`http://user:password@proxy:3128`). */
export function proxyAuthorization(proxy: URL): string | undefined {
  if (proxy.username === '' && proxy.password === '') return undefined;
  const user = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  return `Basic ${Buffer.from(user, 'utf8').toString('base64')}`;
}

/**
 * An https agent whose connections are tunnels through an http proxy (`CONNECT host:port`), with TLS to the
 * server inside the tunnel; pooled and kept alive like direct connections.
 */
export class TunnelingAgent extends https.Agent {
  readonly #proxy: URL;

  constructor(proxy: URL, options: https.AgentOptions) {
    super(options);
    this.#proxy = proxy;
  }

  override createConnection(
    options: http.ClientRequestArgs & tls.ConnectionOptions,
    callback?: (err: Error | null, stream: Duplex) => void,
  ): Duplex | null | undefined {
    const host = options.host ?? options.hostname ?? 'localhost';
    const target = `${host.includes(':') ? `[${host}]` : host}:${options.port ?? 443}`;
    const authorization = proxyAuthorization(this.#proxy);
    const connect = http.request({
      host: this.#proxy.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: this.#proxy.port || 80,
      method: 'CONNECT',
      path: target,
      headers: {
        host: target,
        ...(authorization === undefined ? {} : { 'proxy-authorization': authorization }),
      },
      agent: false,
      ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
    });
    // The agent's callback takes no stream with an error; its declared type insists on one.
    const fail = (error: Error): void => callback?.(error, undefined as unknown as Duplex);
    connect.once('connect', (res, socket: Socket) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        fail(new Error(redact(`proxy ${this.#proxy.host} refused CONNECT ${target} (${res.statusCode})`)));
        return;
      }
      const secure = tls.connect({
        socket,
        servername: isIP(host) === 0 ? host : '',
        ...(options.ca === undefined ? {} : { ca: options.ca }),
        rejectUnauthorized: options.rejectUnauthorized !== false,
      });
      callback?.(null, secure);
    });
    connect.once('timeout', () =>
      connect.destroy(new Error(redact(`proxy ${this.#proxy.host}: CONNECT timed out`))),
    );
    connect.once('error', (error) =>
      fail(new Error(redact(`proxy ${this.#proxy.host}: ${error.message}`), { cause: error })),
    );
    connect.end();
    return undefined;
  }
}
