// What errors and logs may show of a URL, proxy, header or credential: everything but the secret. Every
// message that formats one passes through `redact`, so a new message cannot forget a case of its own.

/** Query parameters whose values are credentials: tokens, signatures of pre-signed URLs, passwords, keys. */
const SECRET_PARAMETER = /token|secret|passw|pwd|signature|credential|auth|^sig$|^key$|^code$/i;

/** `scheme://…` up to whitespace, a quote or an angle bracket. */
const URL_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;

/**
 * The user information of a URL: everything between `//` and the last `@` before the next whitespace, so that a
 * password holding an unencoded `/`, `?` or `#` (`http://user:pa/ss@proxy:3128`) is hidden whole; a URL with an
 * `@` in its path loses its host too, which hides nothing secret. Bounded so no text makes it slow.
 */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]{0,31}:\/\/)\S{0,2048}@/gi;

/** One `name=value` of a query string. */
const QUERY_PARAMETER = /([?&;])([^=&#\s]{1,256})=([^&#\s]*)/g;

/** An `Authorization` or `Proxy-Authorization` header and its value (scheme and credentials). */
const AUTHORIZATION_HEADER =
  /\b((?:proxy-)?authorization)(\s*[:=]\s*)(["']?)(?:[A-Za-z]+\s+)?[A-Za-z0-9._~+/=-]+(?:\s*,\s*[A-Za-z0-9._~+/-]+=[^\s,]*)*/gi;

/**
 * A credential after its scheme, as headers carry them: `Bearer <token>`, `Basic <base64>`; not a challenge's
 * parameters (`Bearer realm="…"`), which say where to log in and hold no secret.
 */
const SCHEME_CREDENTIAL =
  /\b(Bearer|Basic)(\s+)(?![A-Za-z][\w-]*=")[A-Za-z0-9._~+/-]+=*(?![A-Za-z0-9._~+/=-])/g;

/** `user:password@host` without a scheme (a proxy variable may be written so); not `name:tag@sha256:…`. */
const BARE_USERINFO =
  /(^|[\s"'=(<,[])[^\s"'@/:=(<,[]{1,256}:[^\s"'@/]{0,256}@(?=[A-Za-z0-9[])(?![a-z0-9+._-]{1,256}:[0-9a-fA-F]{32})/g;

const HIDDEN = '***';

/**
 * How much of a text is redacted and kept: error messages quote what a registry answered, which may be megabytes;
 * the rest is cut, so no text, however crafted, costs more than this much work.
 */
const MAX_TEXT = 16 * 1024;

/**
 * `value` (a URL, or text holding URLs, headers or credentials) with every secret replaced by `***`: the user
 * and password of URLs (`https://***@proxy:3128`, also `user:password@host` without a scheme), credential
 * query parameters (`token`, `access_token`, `X-Amz-Signature`, `password`, …), the values of
 * `Authorization`/`Proxy-Authorization` headers and `Bearer`/`Basic` credentials. Hosts, ports, paths and other
 * parameters are kept so the message still says where. Text past 16 KiB is cut (`…`).
 */
export function redact(value: string | URL): string {
  const whole = typeof value === 'string' ? value : value.href;
  const text = whole.length > MAX_TEXT ? `${whole.slice(0, MAX_TEXT)}…` : whole;
  return text
    .replace(URL_USERINFO, `$1${HIDDEN}@`)
    .replace(URL_TEXT, (url) =>
      url.replace(QUERY_PARAMETER, (whole, separator: string, name: string) =>
        SECRET_PARAMETER.test(safeDecode(name)) ? `${separator}${name}=${HIDDEN}` : whole,
      ),
    )
    .replace(AUTHORIZATION_HEADER, `$1$2$3${HIDDEN}`)
    .replace(SCHEME_CREDENTIAL, `$1$2${HIDDEN}`)
    .replace(BARE_USERINFO, `$1${HIDDEN}@`);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
