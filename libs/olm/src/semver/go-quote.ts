const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
const NAMED_ESCAPES: Readonly<Record<string, string>> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '"': '\\"',
  '\\': '\\\\',
};

/**
 * Quotes a string the way Go's `strconv.Quote` (the `%q` verb) does, so messages copied from Go tools can be
 * reproduced byte for byte: printable characters are kept, `"` and `\` are escaped, control characters use
 * `\a \b \f \n \r \t \v` or `\xNN`, other non-printable characters `\uNNNN` / `\UNNNNNNNN`.
 */
export function goQuote(value: string): string {
  let out = '"';
  for (const ch of value) {
    const named = NAMED_ESCAPES[ch];
    if (named !== undefined) {
      out += named;
      continue;
    }
    const cp = ch.codePointAt(0)!;
    if (cp >= 0xd800 && cp <= 0xdfff) {
      out += '\\ufffd';
    } else if (PRINTABLE.test(ch)) {
      out += ch;
    } else if (cp < 0x20 || cp === 0x7f) {
      out += `\\x${cp.toString(16).padStart(2, '0')}`;
    } else if (cp < 0x10000) {
      out += `\\u${cp.toString(16).padStart(4, '0')}`;
    } else {
      out += `\\U${cp.toString(16).padStart(8, '0')}`;
    }
  }
  return `${out}"`;
}
