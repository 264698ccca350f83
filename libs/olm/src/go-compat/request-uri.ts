import { isIPv4, isIPv6 } from 'node:net';
import { goQuote } from './go-format.js';

/** What Go's `url.ParseRequestURI` made of a string: its scheme and host, or Go's error text. */
export type RequestUri =
  | { readonly ok: true; readonly scheme: string; readonly host: string }
  | { readonly ok: false; readonly error: string };

/** ASCII bytes net/url leaves unescaped in a host (its `encodeHost` table); non-ASCII bytes are allowed too. */
const HOST_CHARS = /^[!"$&'()*+,\-.0-9:;<=>A-Z[\]_a-z~]$/;
/** RFC 3986 userinfo characters as net/url's `validUserinfo` allows them (`@` included, as Go does). */
const USERINFO = /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*$/;

class UrlError extends Error {}

const isHex = (c: string | undefined): boolean => c !== undefined && /^[0-9A-Fa-f]$/.test(c);

/** net/url `unescape`: checks `%` escapes (and, in a host, the characters); the unescaped text. */
function unescapeUrl(s: string, mode: 'host' | 'zone' | 'path' | 'userinfo'): string {
  let out = '';
  for (let i = 0; i < s.length; ) {
    const c = s[i]!;
    if (c === '%') {
      if (!isHex(s[i + 1]) || !isHex(s[i + 2])) {
        throw new UrlError(`invalid URL escape ${goQuote(s.slice(i, i + 3))}`);
      }
      const escaped = s.slice(i, i + 3);
      const byte = Number.parseInt(s.slice(i + 1, i + 3), 16);
      // In a host only non-ASCII bytes may be escaped (and %25, for IPv6 zones).
      if (mode === 'host' && byte < 0x80 && escaped !== '%25') {
        throw new UrlError(`invalid URL escape ${goQuote(escaped)}`);
      }
      // A zone may escape only what it could hold unescaped (and a space).
      if (
        mode === 'zone' &&
        escaped !== '%25' &&
        byte !== 0x20 &&
        !HOST_CHARS.test(String.fromCharCode(byte))
      ) {
        throw new UrlError(`invalid URL escape ${goQuote(escaped)}`);
      }
      out += String.fromCharCode(byte);
      i += 3;
      continue;
    }
    if ((mode === 'host' || mode === 'zone') && c < '\x80' && !HOST_CHARS.test(c)) {
      throw new UrlError(`invalid character ${goQuote(c)} in host name`);
    }
    out += c;
    i++;
  }
  return out;
}

/** `^(:[0-9]*)?$` — net/url's `validOptionalPort`. */
const validOptionalPort = (port: string): boolean => /^(?::[0-9]*)?$/.test(port);

/** net/url `parseHost` (host[:port], no user information). */
function parseHost(scheme: string, host: string): string {
  const open = host.lastIndexOf('[');
  if (open > 0) throw new UrlError('invalid IP-literal');
  if (open === 0) {
    const close = host.lastIndexOf(']');
    if (close < 0) throw new UrlError("missing ']' in host");
    const colonPort = host.slice(close + 1);
    if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port ${goQuote(colonPort)} after host`);
    const literal = host.slice(1, close);
    const zone = literal.indexOf('%25');
    const address =
      zone >= 0
        ? unescapeUrl(literal.slice(0, zone), 'host') + unescapeUrl(literal.slice(zone), 'zone')
        : unescapeUrl(literal, 'host');
    const percent = address.indexOf('%');
    const ip = percent >= 0 ? address.slice(0, percent) : address;
    // netip.ParseAddr: an IPv6 address, optionally with a non-empty zone; IPv4 is not an IP-literal.
    if (isIPv4(ip) && percent < 0) throw new UrlError('invalid IP-literal');
    if (!isIPv6(ip) || (percent >= 0 && percent === address.length - 1)) {
      throw new UrlError(`invalid host: ParseAddr(${goQuote(address)}): unable to parse IP`);
    }
    return `[${address}]${colonPort}`;
  }
  let colon = host.indexOf(':');
  if (colon >= 0) {
    // Several colons are refused in http(s) hosts only (Go 1.26 `urlstrictcolons`).
    const last = host.lastIndexOf(':');
    if (last !== colon && scheme !== 'http' && scheme !== 'https') colon = last;
    const colonPort = host.slice(colon);
    if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port ${goQuote(colonPort)} after host`);
  }
  return unescapeUrl(host, 'host');
}

/** net/url `parseAuthority`: `[userinfo@]host`. */
function parseAuthority(scheme: string, authority: string): string {
  const at = authority.lastIndexOf('@');
  const host = parseHost(scheme, at < 0 ? authority : authority.slice(at + 1));
  if (at < 0) return host;
  const userinfo = authority.slice(0, at);
  if (!USERINFO.test(userinfo)) throw new UrlError('net/url: invalid userinfo');
  const colon = userinfo.indexOf(':');
  if (colon < 0) unescapeUrl(userinfo, 'userinfo');
  else {
    unescapeUrl(userinfo.slice(0, colon), 'userinfo');
    unescapeUrl(userinfo.slice(colon + 1), 'userinfo');
  }
  return host;
}

function parse(raw: string): { scheme: string; host: string } {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: Go refuses exactly the ASCII control characters.
  if (/[\x00-\x1f\x7f]/.test(raw)) throw new UrlError('net/url: invalid control character in URL');
  if (raw === '') throw new UrlError('empty url');
  if (raw === '*') return { scheme: '', host: '' };
  let scheme = '';
  let rest = raw;
  const colon = raw.indexOf(':');
  const head = colon < 0 ? '' : raw.slice(0, colon);
  if (colon === 0) throw new UrlError('missing protocol scheme');
  if (colon > 0 && SCHEME.test(head)) {
    scheme = head.toLowerCase();
    rest = raw.slice(colon + 1);
  }
  if (rest.endsWith('?') && rest.indexOf('?') === rest.length - 1) rest = rest.slice(0, -1);
  else if (rest.includes('?')) rest = rest.slice(0, rest.indexOf('?'));
  if (!rest.startsWith('/')) {
    // A rootless path after a scheme is opaque; without a scheme a request URI must be absolute.
    if (scheme !== '') return { scheme, host: '' };
    throw new UrlError('invalid URI for request');
  }
  let host = '';
  if (scheme !== '' && rest.startsWith('//')) {
    let authority = rest.slice(2);
    const slash = authority.indexOf('/');
    rest = slash >= 0 ? authority.slice(slash) : '';
    if (slash >= 0) authority = authority.slice(0, slash);
    host = parseAuthority(scheme, authority);
  }
  unescapeUrl(rest, 'path');
  return { scheme, host };
}

/**
 * Go's `url.ParseRequestURI`, which operator-framework/api validates CSV links (and Kubernetes the
 * `api-approved.kubernetes.io` URL) with. It is lenient where WHATWG URLs are not: a space or other
 * unescaped character in the path is fine, and only the host's characters, `%` escapes, the port and control
 * characters are checked. Error texts are Go's (`parse "…": invalid character " " in host name`).
 */
export function parseRequestUri(raw: string): RequestUri {
  try {
    return { ok: true, ...parse(raw) };
  } catch (error) {
    if (!(error instanceof UrlError)) throw error;
    return { ok: false, error: `parse ${goQuote(raw)}: ${error.message}` };
  }
}
