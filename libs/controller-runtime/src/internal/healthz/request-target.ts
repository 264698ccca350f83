/**
 * What a server does with a request target, decided once per request so that the path a filter authorizes is
 * the path that is routed:
 * - `serve`: the target is canonical; `path` is its decoded path, the one to authorize and to route.
 * - `redirect`: the path has dot segments, empty segments or escapes that decode to what needs none; answer
 *   301 to `location`, the canonical form with the same query (as Go's `ServeMux` does for unclean paths).
 * - `refuse`: no origin-form target, or one whose path cannot be decoded unambiguously; answer 400.
 */
export type RequestTarget =
  | { readonly kind: 'serve'; readonly path: string; readonly query: URLSearchParams }
  | { readonly kind: 'redirect'; readonly location: string }
  | { readonly kind: 'refuse'; readonly reason: string };

/** Bytes that stand for themselves in a path (RFC 3986 `pchar` and `/`, without `%`); all others are escaped. */
const LITERAL = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/]$/;
const SLASH = 0x2f;
const HEX_PAIR = /^[0-9A-Fa-f]{2}$/;

/**
 * Sorts a request target (`req.url`: the bytes of the request line, one character per byte) into one of the
 * three outcomes above. A path is canonical when escaping its decoded, cleaned form gives back exactly what
 * was sent, so `/apis/../metrics`, `/api/%2e%2e/metrics`, `//metrics` inside a path and `/me%74rics` are all
 * redirected to `/metrics` before anyone is asked about them.
 */
export function requestTarget(url: string): RequestTarget {
  // `//host/path` would read as an authority; anything not starting with `/` is no path at all.
  if (!url.startsWith('/') || url.startsWith('//')) return refuse('not a path');
  if (url.includes('#')) return refuse('a fragment in the request target');
  const mark = url.indexOf('?');
  const rawPath = mark < 0 ? url : url.slice(0, mark);
  const rawQuery = mark < 0 ? undefined : url.slice(mark + 1);
  const decoded = decodePath(rawPath);
  if (typeof decoded !== 'string') return decoded;
  const path = cleanPath(decoded);
  const canonical = escapePath(path);
  if (canonical !== rawPath) {
    return {
      kind: 'redirect',
      location: rawQuery === undefined ? canonical : `${canonical}?${escapeOutsideAscii(rawQuery)}`,
    };
  }
  return { kind: 'serve', path, query: new URLSearchParams(rawQuery ?? '') };
}

function refuse(reason: string): RequestTarget {
  return { kind: 'refuse', reason };
}

/** Percent-decodes a path as UTF-8; refuses bad escapes, an escaped `/` (it would move segment boundaries), control characters. */
function decodePath(raw: string): string | RequestTarget {
  const bytes: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    const char = raw.charCodeAt(i);
    if (char !== 0x25) {
      if (char > 0xff) bytes.push(...Buffer.from(raw[i] ?? '', 'utf8'));
      else bytes.push(char);
      continue;
    }
    const hex = raw.slice(i + 1, i + 3);
    if (!HEX_PAIR.test(hex)) return refuse(`bad percent-escape "%${hex}" in the path`);
    const byte = Number.parseInt(hex, 16);
    if (byte === SLASH) return refuse('an escaped "/" in the path');
    bytes.push(byte);
    i += 2;
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bytes));
  } catch {
    return refuse('the path is not UTF-8');
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused here
  if (/[\u0000-\u001f\u007f]/.test(text)) return refuse('a control character in the path');
  return text;
}

/**
 * The path with `.` and `..` segments resolved and empty segments dropped; a trailing `/` is kept, as
 * Go's `ServeMux` keeps it (`/a/.` is `/a`, `/a/./` is `/a/`). Never climbs above `/`.
 */
function cleanPath(path: string): string {
  const segments: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  const clean = `/${segments.join('/')}`;
  return path.endsWith('/') && clean !== '/' ? `${clean}/` : clean;
}

/** The one escaped spelling of a decoded path: UTF-8, uppercase hex, only bytes outside {@link LITERAL} escaped. */
function escapePath(path: string): string {
  let out = '';
  for (const byte of Buffer.from(path, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += LITERAL.test(char) ? char : escapeByte(byte);
  }
  return out;
}

/** A query copied into a `Location` header: bytes outside printable ASCII escaped, the rest as sent. */
function escapeOutsideAscii(query: string): string {
  return query.replace(/[^\x21-\x7e]/g, (char) => {
    const code = char.charCodeAt(0);
    return code > 0xff ? [...Buffer.from(char, 'utf8')].map(escapeByte).join('') : escapeByte(code);
  });
}

function escapeByte(byte: number): string {
  return `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
}
