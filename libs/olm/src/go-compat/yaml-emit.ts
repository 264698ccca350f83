import { goFloat } from './go-format.js';
import { isGoYamlTimestamp } from './index.js';
import { resolvePlainScalar } from './yaml-json.js';

/**
 * A YAML writer that reproduces what opm writes for a JSON value: sigs.k8s.io/yaml `JSONToYAML`, i.e. go-yaml v2
 * `Marshal` of the decoded JSON — keys in go-yaml's "natural" order, block style, two-space indentation,
 * sequences not indented under their key, strings plain when they would not resolve to another type, long
 * plain and quoted strings folded at column 80, multi-line strings as literal blocks. This is a port of the parts
 * of libyaml's emitter (emitterc.go) that JSON-shaped documents reach.
 */

const BEST_WIDTH = 80;
const BEST_INDENT = 2;

type Style = 'plain' | 'single' | 'double' | 'literal';

interface ScalarAnalysis {
  multiline: boolean;
  flowPlainAllowed: boolean;
  blockPlainAllowed: boolean;
  singleQuotedAllowed: boolean;
  blockAllowed: boolean;
}

const isSpaceCp = (c: number | undefined): boolean => c === 0x20;
const isBreakCp = (c: number | undefined): boolean =>
  c === 0x0d || c === 0x0a || c === 0x85 || c === 0x2028 || c === 0x2029;
const isBlankCp = (c: number | undefined): boolean => c === 0x20 || c === 0x09;
const isPrintableCp = (c: number): boolean =>
  c === 0x0a ||
  (c >= 0x20 && c <= 0x7e) ||
  (c >= 0xa0 && c <= 0xd7ff) ||
  (c >= 0xe000 && c <= 0xfffd && c !== 0xfeff);

// Long on purpose: it follows go-yaml's `yaml_emitter_analyze_scalar` flag by flag, in one pass over the code
// points, so the two can be compared side by side.
function analyzeScalar(cps: readonly number[]): ScalarAnalysis {
  if (cps.length === 0) {
    return {
      multiline: false,
      flowPlainAllowed: false,
      blockPlainAllowed: true,
      singleQuotedAllowed: true,
      blockAllowed: false,
    };
  }
  let blockIndicators = false;
  let flowIndicators = false;
  let lineBreaks = false;
  let specialCharacters = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let previousSpace = false;
  let previousBreak = false;
  const startsWith = (s: string): boolean =>
    cps.length >= 3 && s.split('').every((ch, k) => cps[k] === ch.charCodeAt(0));
  if (startsWith('---') || startsWith('...')) {
    blockIndicators = true;
    flowIndicators = true;
  }
  let precededByWhitespace = true;
  for (let i = 0; i < cps.length; i++) {
    const c = cps[i]!;
    const ch = String.fromCodePoint(c);
    const next = cps[i + 1];
    const followedByWhitespace = i + 1 >= cps.length || isBlankCp(next) || isBreakCp(next);
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(ch)) {
        flowIndicators = true;
        blockIndicators = true;
      } else if (ch === '?' || ch === ':') {
        flowIndicators = true;
        if (followedByWhitespace) blockIndicators = true;
      } else if (ch === '-' && followedByWhitespace) {
        flowIndicators = true;
        blockIndicators = true;
      }
    } else if (',?[]{}'.includes(ch)) {
      flowIndicators = true;
    } else if (ch === ':') {
      flowIndicators = true;
      if (followedByWhitespace) blockIndicators = true;
    } else if (ch === '#' && precededByWhitespace) {
      flowIndicators = true;
      blockIndicators = true;
    }
    if (!isPrintableCp(c)) specialCharacters = true;
    if (isSpaceCp(c)) {
      if (i === 0) leadingSpace = true;
      if (i === cps.length - 1) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isBreakCp(c)) {
      lineBreaks = true;
      if (i === 0) leadingBreak = true;
      if (i === cps.length - 1) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousSpace = false;
      previousBreak = true;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = isBlankCp(c) || isBreakCp(c) || c === 0;
  }
  const a: ScalarAnalysis = {
    multiline: lineBreaks,
    flowPlainAllowed: true,
    blockPlainAllowed: true,
    singleQuotedAllowed: true,
    blockAllowed: true,
  };
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) {
    a.flowPlainAllowed = false;
    a.blockPlainAllowed = false;
  }
  if (trailingSpace) a.blockAllowed = false;
  if (breakSpace) {
    a.flowPlainAllowed = false;
    a.blockPlainAllowed = false;
    a.singleQuotedAllowed = false;
  }
  if (spaceBreak || specialCharacters) {
    a.flowPlainAllowed = false;
    a.blockPlainAllowed = false;
    a.singleQuotedAllowed = false;
    a.blockAllowed = false;
  }
  if (lineBreaks) {
    a.flowPlainAllowed = false;
    a.blockPlainAllowed = false;
  }
  if (flowIndicators) a.flowPlainAllowed = false;
  if (blockIndicators) a.blockPlainAllowed = false;
  return a;
}

const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;
/** Whether go-yaml would write the string unquoted (it reads back as a string). */
export function canUsePlain(s: string): boolean {
  if (BASE60_FLOAT.test(s)) return false;
  if (isGoYamlTimestamp(s)) return false;
  return typeof resolvePlainScalar(s) === 'string';
}

/** go-yaml v2's map key order (`keyList.Less`): runs of digits compare numerically, non-letters before letters. */
export function yamlKeyLess(a: string, b: string): boolean {
  const ar = [...a];
  const br = [...b];
  const isLetter = (ch: string): boolean => /\p{L}/u.test(ch);
  const isDigit = (ch: string | undefined): boolean => ch !== undefined && /\p{Nd}/u.test(ch);
  for (let i = 0; i < ar.length && i < br.length; i++) {
    if (ar[i] === br[i]) continue;
    const al = isLetter(ar[i]!);
    const bl = isLetter(br[i]!);
    if (al && bl) return ar[i]!.codePointAt(0)! < br[i]!.codePointAt(0)!;
    if (al || bl) return bl;
    let an = 0n;
    let bn = 0n;
    if (ar[i] === '0' || br[i] === '0') {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]); j--) {
        if (ar[j] !== '0') {
          an = 1n;
          bn = 1n;
          break;
        }
      }
    }
    let ai = i;
    let bi = i;
    for (; ai < ar.length && isDigit(ar[ai]); ai++) an = an * 10n + BigInt(ar[ai]!.codePointAt(0)! - 48);
    for (; bi < br.length && isDigit(br[bi]); bi++) bn = bn * 10n + BigInt(br[bi]!.codePointAt(0)! - 48);
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return ar[i]!.codePointAt(0)! < br[i]!.codePointAt(0)!;
  }
  return ar.length < br.length;
}

const UINT64_MAX = 18446744073709551615n;
const INT64_MIN = -9223372036854775808n;

/** How go-yaml writes a JSON number after sigs.k8s.io/yaml decoded it (ints stay ints, floats use `%g`). */
function numberText(n: number): string {
  if (Number.isNaN(n)) return '.nan';
  if (!Number.isFinite(n)) return n > 0 ? '.inf' : '-.inf';
  const json = Object.is(n, -0) ? '-0' : JSON.stringify(n);
  if (/^-?[0-9]+$/.test(json)) {
    const big = BigInt(json);
    if (big >= INT64_MIN && big <= UINT64_MAX) return json === '-0' ? '0' : json;
  }
  return goFloat(n);
}

/** ASCII words that libyaml's analysis allows plain in block context: no indicator first, no space or break. */
const PLAIN_WORD = /^[A-Za-z0-9+/=_][A-Za-z0-9+/=._-]*$/;
/** The characters libyaml counts as line breaks. */
const LINE_BREAK = /[\r\n\u0085\u2028\u2029]/;

/** The number of code points of `s` (what libyaml counts as columns). */
function codePoints(s: string): number {
  let n = s.length;
  for (let i = 1; i < s.length; i++) {
    // A low surrogate after a high one completes a pair: one code point, not two.
    if ((s.charCodeAt(i) & 0xfc00) === 0xdc00 && (s.charCodeAt(i - 1) & 0xfc00) === 0xd800) n--;
  }
  return n;
}

class Emitter {
  /** Whether the shortcut for plain words is taken (the general path alone is kept for tests to compare with). */
  constructor(private readonly shortcuts = true) {}
  out = '';
  column = 0;
  whitespace = true;
  indention = true;
  openEnded = false;
  indent = -1;
  private readonly indents: number[] = [];

  put(s: string): void {
    this.out += s;
    this.column += codePoints(s);
  }

  putBreak(): void {
    this.out += '\n';
    this.column = 0;
  }

  increaseIndent(flow: boolean, indentless: boolean): void {
    this.indents.push(this.indent);
    if (this.indent < 0) this.indent = flow ? BEST_INDENT : 0;
    else if (!indentless) this.indent += BEST_INDENT;
  }

  popIndent(): void {
    this.indent = this.indents.pop()!;
  }

  writeIndent(): void {
    const indent = Math.max(this.indent, 0);
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace))
      this.putBreak();
    while (this.column < indent) this.put(' ');
    this.whitespace = true;
    this.indention = true;
  }

  writeIndicator(
    indicator: string,
    needWhitespace: boolean,
    isWhitespace: boolean,
    isIndention: boolean,
  ): void {
    if (needWhitespace && !this.whitespace) this.put(' ');
    this.put(indicator);
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
    this.openEnded = false;
  }

  writeBreakChar(c: number): void {
    if (c === 0x0a) this.putBreak();
    else {
      this.out += String.fromCodePoint(c);
      this.column = 0;
    }
  }

  writePlain(cps: readonly number[], allowBreaks: boolean): void {
    if (!this.whitespace) this.put(' ');
    let spaces = false;
    let breaks = false;
    for (let i = 0; i < cps.length; i++) {
      const c = cps[i]!;
      if (isSpaceCp(c)) {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && !isSpaceCp(cps[i + 1])) this.writeIndent();
        else this.put(' ');
        spaces = true;
      } else if (isBreakCp(c)) {
        if (!breaks && c === 0x0a) this.putBreak();
        this.writeBreakChar(c);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.put(String.fromCodePoint(c));
        this.indention = false;
        spaces = false;
        breaks = false;
      }
    }
    this.whitespace = false;
    this.indention = false;
  }

  writeSingleQuoted(cps: readonly number[], allowBreaks: boolean): void {
    this.writeIndicator("'", true, false, false);
    let spaces = false;
    let breaks = false;
    for (let i = 0; i < cps.length; i++) {
      const c = cps[i]!;
      if (isSpaceCp(c)) {
        if (
          allowBreaks &&
          !spaces &&
          this.column > BEST_WIDTH &&
          i > 0 &&
          i < cps.length - 1 &&
          !isSpaceCp(cps[i + 1])
        ) {
          this.writeIndent();
        } else this.put(' ');
        spaces = true;
      } else if (isBreakCp(c)) {
        if (!breaks && c === 0x0a) this.putBreak();
        this.writeBreakChar(c);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        if (c === 0x27) this.put("'");
        this.put(String.fromCodePoint(c));
        this.indention = false;
        spaces = false;
        breaks = false;
      }
    }
    this.writeIndicator("'", false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  writeDoubleQuoted(cps: readonly number[], allowBreaks: boolean): void {
    let spaces = false;
    this.writeIndicator('"', true, false, false);
    const named: Record<number, string> = {
      0: '0',
      7: 'a',
      8: 'b',
      9: 't',
      10: 'n',
      11: 'v',
      12: 'f',
      13: 'r',
      27: 'e',
      34: '"',
      92: '\\',
      133: 'N',
      160: '_',
      8232: 'L',
      8233: 'P',
    };
    for (let i = 0; i < cps.length; i++) {
      const c = cps[i]!;
      if (!isPrintableCp(c) || c === 0xfeff || isBreakCp(c) || c === 0x22 || c === 0x5c) {
        const n = named[c];
        if (n !== undefined) this.put(`\\${n}`);
        else if (c <= 0xff) this.put(`\\x${c.toString(16).toUpperCase().padStart(2, '0')}`);
        else if (c <= 0xffff) this.put(`\\u${c.toString(16).toUpperCase().padStart(4, '0')}`);
        else this.put(`\\U${c.toString(16).toUpperCase().padStart(8, '0')}`);
        spaces = false;
      } else if (isSpaceCp(c)) {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < cps.length - 1) {
          this.writeIndent();
          if (isSpaceCp(cps[i + 1])) this.put('\\');
        } else this.put(' ');
        spaces = true;
      } else {
        this.put(String.fromCodePoint(c));
        spaces = false;
      }
    }
    this.writeIndicator('"', false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  writeLiteral(cps: readonly number[]): void {
    this.writeIndicator('|', true, false, false);
    if (isSpaceCp(cps[0]) || isBreakCp(cps[0])) this.writeIndicator(String(BEST_INDENT), false, false, false);
    this.openEnded = false;
    let chomp = '';
    if (cps.length === 0 || !isBreakCp(cps[cps.length - 1])) chomp = '-';
    else if (cps.length === 1) {
      chomp = '+';
      this.openEnded = true;
    } else if (isBreakCp(cps[cps.length - 2])) {
      chomp = '+';
      this.openEnded = true;
    }
    // libyaml sets open_ended for "+" and then clears it again when writing the indicator.
    if (chomp) this.writeIndicator(chomp, false, false, false);
    this.putBreak();
    this.indention = true;
    this.whitespace = true;
    let breaks = true;
    for (const c of cps) {
      if (isBreakCp(c)) {
        this.writeBreakChar(c);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.put(String.fromCodePoint(c));
        this.indention = false;
        breaks = false;
      }
    }
  }

  /** yaml_emitter_emit_scalar for a string. */
  stringScalar(s: string, simpleKey: boolean): void {
    if (this.shortcuts && PLAIN_WORD.test(s) && canUsePlain(s)) {
      // One word without indicators, spaces or breaks (base64 data, names, images): plain, never folded. This is
      // what the general path below writes for it, without visiting megabytes of base64 one code point at a time.
      if (!this.whitespace) this.put(' ');
      this.out += s;
      this.column += s.length;
      this.whitespace = false;
      this.indention = false;
      return;
    }
    const cps = [...s].map((ch) => ch.codePointAt(0)!);
    let style: Style = s.includes('\n') ? 'literal' : canUsePlain(s) ? 'plain' : 'double';
    const a = analyzeScalar(cps);
    if (style === 'plain') {
      if (!a.blockPlainAllowed) style = 'single';
      if (cps.length === 0 && simpleKey) style = 'single';
    }
    if (style === 'single' && !a.singleQuotedAllowed) style = 'double';
    if (style === 'literal' && (!a.blockAllowed || simpleKey)) style = 'double';
    this.increaseIndent(true, false);
    if (style === 'plain') this.writePlain(cps, !simpleKey);
    else if (style === 'single') this.writeSingleQuoted(cps, !simpleKey);
    else if (style === 'double') this.writeDoubleQuoted(cps, !simpleKey);
    else this.writeLiteral(cps);
    this.popIndent();
  }

  plainScalar(text: string): void {
    this.increaseIndent(true, false);
    this.writePlain(
      [...text].map((ch) => ch.codePointAt(0)!),
      true,
    );
    this.popIndent();
  }

  node(v: unknown, mappingContext: boolean, simpleKey = false): void {
    if (v === null || v === undefined) this.plainScalar('null');
    else if (typeof v === 'boolean') this.plainScalar(String(v));
    else if (typeof v === 'number') this.plainScalar(numberText(v));
    else if (typeof v === 'string') this.stringScalar(v, simpleKey);
    else if (Array.isArray(v)) this.sequence(v, mappingContext);
    else this.mapping(v as Record<string, unknown>);
  }

  sequence(items: readonly unknown[], mappingContext: boolean): void {
    if (items.length === 0) {
      this.writeIndicator('[', true, true, false);
      this.writeIndicator(']', false, false, false);
      return;
    }
    this.increaseIndent(false, mappingContext && !this.indention);
    for (const item of items) {
      this.writeIndent();
      this.writeIndicator('-', true, false, true);
      this.node(item, false);
    }
    this.popIndent();
  }

  mapping(obj: Record<string, unknown>): void {
    const keys = Object.keys(obj).filter((k) => obj[k] !== undefined);
    if (keys.length === 0) {
      this.writeIndicator('{', true, true, false);
      this.writeIndicator('}', false, false, false);
      return;
    }
    keys.sort((a, b) => (yamlKeyLess(a, b) ? -1 : yamlKeyLess(b, a) ? 1 : 0));
    this.increaseIndent(false, false);
    for (const key of keys) {
      this.writeIndent();
      // libyaml's check_simple_key: at most 128 bytes and a single line; otherwise a "? key" / ": value" pair.
      if (Buffer.byteLength(key) <= 128 && !LINE_BREAK.test(key)) {
        this.node(key, true, true);
        this.writeIndicator(':', false, false, false);
      } else {
        this.writeIndicator('?', true, false, true);
        this.node(key, true);
        this.writeIndent();
        this.writeIndicator(':', true, false, true);
      }
      this.node(obj[key], true);
    }
    this.popIndent();
  }
}

/** Converts GoStruct maps to plain objects and drops `undefined` members (what a JSON round trip does). */
function toPlain(v: unknown): unknown {
  if (v instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, e] of v) if (e !== undefined) out[k] = toPlain(e);
    return out;
  }
  if (Array.isArray(v)) return v.map((e) => (e === undefined ? null : toPlain(e)));
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, e] of Object.entries(v)) if (e !== undefined) out[k] = toPlain(e);
    return out;
  }
  return v;
}

/** Encodes one document like sigs.k8s.io/yaml `JSONToYAML` (go-yaml v2), ending with a newline. */
export function encodeGoYaml(value: unknown): string {
  return encodeDocument(value, true);
}

/** {@link encodeGoYaml} through libyaml's general path only, for tests that check the shortcuts against it. */
export function encodeGoYamlWithoutShortcuts(value: unknown): string {
  return encodeDocument(value, false);
}

function encodeDocument(value: unknown, shortcuts: boolean): string {
  const e = new Emitter(shortcuts);
  e.node(toPlain(value), false);
  e.writeIndent();
  if (e.openEnded) {
    e.writeIndicator('...', true, false, false);
    e.writeIndent();
  }
  return e.out.endsWith('\n') ? e.out : `${e.out}\n`;
}
