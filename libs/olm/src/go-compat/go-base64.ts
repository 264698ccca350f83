const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DECODE = new Int16Array(256).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DECODE[ALPHABET.charCodeAt(i)] = i;
const PAD = 0x3d;
const isNewline = (c: number): boolean => c === 0x0a || c === 0x0d;

/** The error Go's `base64.StdEncoding.Decode` returns: `illegal base64 data at input byte N`. */
export class Base64Error extends Error {
  constructor(readonly offset: number) {
    super(`illegal base64 data at input byte ${offset}`);
    this.name = 'Base64Error';
  }
}

/**
 * Decodes standard, padded base64 exactly as strictly (and as leniently: CR and LF are skipped) as Go's
 * `base64.StdEncoding.Decode`, which is what `encoding/json` applies to `[]byte` fields such as
 * `olm.bundle.object` data and package icons.
 *
 * @throws Base64Error at the byte offset Go reports.
 */
export function decodeGoBase64(input: string): Uint8Array {
  // Almost all data is canonical: what encoding its bytes gives back. Node's decoder is fast but lenient (it
  // skips what is not base64), so its result counts only for canonical text; anything else (line breaks,
  // errors, stray padding bits) takes Go's own loop.
  if (isCanonicalBase64(input)) return Buffer.from(input, 'base64');
  return decodeStrictly(input);
}

/** The first character outside the alphabet. */
const NOT_ALPHABET = /[^A-Za-z0-9+/]/;

/**
 * Whether `text` is exactly what standard padded base64 encoding gives for some bytes: whole quanta of the
 * alphabet, at most two `=` and only at the end, and no bits set in the padding. Such text decodes without
 * error, and encoding its bytes gives it back, so whoever decodes and re-encodes it (encoding/json does for
 * `[]byte`) can keep it as it is. One native search, nothing allocated: bundles carry megabytes of it.
 */
export function isCanonicalBase64(text: string): boolean {
  const n = text.length;
  if (n % 4 !== 0) return false;
  const pads = text.charCodeAt(n - 1) !== PAD ? 0 : text.charCodeAt(n - 2) !== PAD ? 1 : 2;
  // Every character before the padding is in the alphabet, and the padding is all that follows.
  if (text.search(NOT_ALPHABET) !== (pads === 0 ? -1 : n - pads)) return false;
  if (pads === 0) return true;
  // The bits of the last character that fall into the padding must be zero, or encoding would not give them.
  return (DECODE[text.charCodeAt(n - pads - 1)]! & (pads === 2 ? 0x0f : 0x03)) === 0;
}

/** Go's decoding loop, quantum by quantum, for text with line breaks or errors. */
function decodeStrictly(input: string): Uint8Array {
  const src = Buffer.from(input, 'utf8');
  const out = new Uint8Array(Math.ceil((src.length * 3) / 4));
  let n = 0;
  let si = 0;
  const dbuf = [0, 0, 0, 0];
  for (;;) {
    let dlen = 4;
    let finished = false;
    for (let j = 0; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return out.subarray(0, n);
        throw new Base64Error(si - j);
      }
      const c = src[si]!;
      si++;
      const d = DECODE[c]!;
      if (d >= 0) {
        dbuf[j] = d;
        continue;
      }
      if (isNewline(c)) {
        j--;
        continue;
      }
      if (c !== PAD) throw new Base64Error(si - 1);
      if (j === 0 || j === 1) throw new Base64Error(si - 1);
      if (j === 2) {
        while (si < src.length && isNewline(src[si]!)) si++;
        if (si === src.length) throw new Base64Error(src.length);
        if (src[si] !== PAD) throw new Base64Error(si - 1);
        si++;
      }
      while (si < src.length && isNewline(src[si]!)) si++;
      if (si < src.length) throw new Base64Error(si);
      dlen = j;
      finished = true;
      break;
    }
    const v = (dbuf[0]! << 18) | (dbuf[1]! << 12) | (dbuf[2]! << 6) | dbuf[3]!;
    if (dlen > 1) out[n++] = (v >> 16) & 0xff;
    if (dlen > 2) out[n++] = (v >> 8) & 0xff;
    if (dlen > 3) out[n++] = v & 0xff;
    if (finished) return out.subarray(0, n);
  }
}

/** Encodes bytes as standard padded base64 (Go's `base64.StdEncoding.EncodeToString`). */
export function encodeGoBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64');
}
