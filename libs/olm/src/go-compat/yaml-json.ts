import type { Alias, Document, Node, Scalar } from 'yaml';
import { yamlLibrary } from '../yaml-library.js';
import { goFloat, sortInByteOrder } from './go-format.js';
import type { GoType } from './go-json-decode.js';
import { goFieldName, goFloat32, goYamlScalarString, parseGoYamlDocument } from './index.js';
import { yamlDepthError } from './yaml-depth.js';

/** Thrown when a YAML document cannot be converted to JSON; `message` follows sigs.k8s.io/yaml's wording. */
export class YamlConversionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'YamlConversionError';
  }
}

const RESOLVED: ReadonlyMap<string, unknown> = new Map<string, unknown>([
  ...['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON'].map((s) => [s, true] as const),
  ...['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF'].map(
    (s) => [s, false] as const,
  ),
  ...['', '~', 'null', 'Null', 'NULL'].map((s) => [s, null] as const),
  ...['.nan', '.NaN', '.NAN'].map((s) => [s, Number.NaN] as const),
  ...['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF'].map((s) => [s, Number.POSITIVE_INFINITY] as const),
  ...['-.inf', '-.Inf', '-.INF'].map((s) => [s, Number.NEGATIVE_INFINITY] as const),
]);
const YAML_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;
const UINT64_MAX = 18446744073709551615n;

/** Go's `strconv.ParseInt(s, 0, 64)` / `ParseUint(s, 0, 64)` accepting range; `undefined` when Go errors. */
function parseGoInt(s: string): bigint | undefined {
  const m = /^([+-]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/.exec(s);
  if (!m) return undefined;
  const body = m[2]!;
  let digits: bigint;
  if (/^0[xXoObB]/.test(body)) digits = BigInt(body.toLowerCase());
  else if (body.length > 1 && body.startsWith('0')) digits = BigInt(`0o${body.slice(1)}`);
  else digits = BigInt(body);
  const value = m[1] === '-' ? -digits : digits;
  const fitsInt64 = value >= INT64_MIN && value <= INT64_MAX;
  const fitsUint64 = m[1] === '' && value <= UINT64_MAX;
  if (!fitsInt64 && !fitsUint64) return undefined;
  return value;
}

/**
 * Resolves an untagged plain scalar the way go-yaml v2 (behind sigs.k8s.io/yaml, which opm uses) does when decoding
 * into `interface{}`: YAML 1.1 booleans (`yes`, `on`, …), nulls, ints with `0x`/`0o`/`0b`/leading-zero octal and
 * `_` separators, floats — and timestamps stay strings.
 */
export function resolvePlainScalar(s: string): unknown {
  const first = s[0];
  const hint = first === undefined ? 'M' : resolveHint(first);
  if (hint === undefined) return s;
  if (RESOLVED.has(s)) return RESOLVED.get(s);
  if (hint === '.') {
    return /^\.[0-9]+([eE][-+]?[0-9]+)?$/.test(s) ? Number(s) : s;
  }
  if (hint === 'D' || hint === 'S') {
    const plain = s.replaceAll('_', '');
    const int = parseGoInt(plain);
    if (int !== undefined) return Number(int);
    if (YAML_FLOAT.test(plain)) {
      const f = Number(plain);
      if (Number.isFinite(f)) return f;
    }
  }
  return s;
}

function resolveHint(c: string): 'S' | 'D' | 'M' | '.' | undefined {
  if (c === '+' || c === '-') return 'S';
  if (c >= '0' && c <= '9') return 'D';
  if ('yYnNtTfFoO~'.includes(c)) return 'M';
  if (c === '.') return '.';
  return undefined;
}

/** YAML's spelling of the floats Go prints as `+Inf`, `-Inf`, `NaN`. */
const YAML_NON_FINITE: Readonly<Record<string, string>> = { '+Inf': '.inf', '-Inf': '-.inf', NaN: '.nan' };

/**
 * A map key as sigs.k8s.io/yaml names it: go-yaml's ints in decimal, its floats with float32 precision (`1e7` is
 * `1e+07`, `.inf` stays `.inf`). `source` is the key's text, which tells an int from an integral float.
 */
function keyString(key: unknown, source?: string): string {
  if (typeof key === 'string') return key;
  if (typeof key === 'number') {
    const int = source === undefined ? undefined : parseGoInt(source.replaceAll('_', ''));
    if (int !== undefined) return int.toString();
    if (source === undefined && Number.isInteger(key)) return String(key);
    const float = goFloat32(key);
    return YAML_NON_FINITE[float] ?? float;
  }
  if (typeof key === 'boolean') return String(key);
  throw new YamlConversionError(`error converting YAML to JSON: unsupported map key of type: ${typeof key}`);
}

/**
 * go-yaml v2's decoder bookkeeping, which bounds what aliases may expand to: every node decoded counts, and
 * those decoded through an alias count again as aliased; when aliased nodes outweigh the allowed ratio the
 * document is refused ("billion laughs"), and an anchor that contains its own alias is refused too.
 */
class Decoder {
  private decodeCount = 0;
  private aliasCount = 0;
  private aliasDepth = 0;
  /** A NaN or ±Inf was decoded: the result needs the JSON check (most documents have none). */
  nonFinite = false;
  private readonly expanding = new Set<Node>();
  private readonly yaml = yamlLibrary();

  constructor(private readonly doc: Document) {}

  toJson(node: Node | null | undefined, target?: GoType): unknown {
    this.count();
    if (node === null || node === undefined) return null;
    if (this.yaml.isAlias(node)) return this.alias(node, target);
    if (this.yaml.isScalar(node)) {
      const value = target?.kind === 'string' ? scalarToString(node) : scalarToJson(node);
      if (typeof value === 'number' && !Number.isFinite(value)) this.nonFinite = true;
      return value;
    }
    if (this.yaml.isSeq(node)) {
      const elem = target?.kind === 'slice' ? target.elem : undefined;
      return node.items.map((item) => this.toJson(item as Node, elem));
    }
    if (this.yaml.isMap(node)) {
      const out: Record<string, unknown> = {};
      for (const pair of node.items) {
        const keyNode = pair.key as Node | null;
        if (this.yaml.isScalar(keyNode) && keyNode.type === 'PLAIN' && keyNode.value === '<<') {
          this.merge(out, pair.value as Node, target);
          continue;
        }
        const key =
          this.yaml.isScalar(keyNode) || this.yaml.isAlias(keyNode) || keyNode === null
            ? this.toJson(keyNode)
            : undefined;
        if (key === undefined || typeof key === 'object') {
          throw new YamlConversionError('error converting YAML to JSON: unsupported map key of type: map');
        }
        const name = keyString(key, this.yaml.isScalar(keyNode) ? String(keyNode.value) : undefined);
        out[name] = this.toJson(pair.value as Node, target && fieldTarget(target, name));
      }
      return out;
    }
    return null;
  }

  private count(): void {
    this.decodeCount++;
    if (this.aliasDepth > 0) this.aliasCount++;
    if (
      this.aliasCount > 100 &&
      this.decodeCount > 1000 &&
      this.aliasCount / this.decodeCount > allowedAliasRatio(this.decodeCount)
    ) {
      throw new YamlConversionError(
        'error converting YAML to JSON: yaml: document contains excessive aliasing',
      );
    }
  }

  private alias(node: Alias, target: GoType | undefined): unknown {
    const resolved = node.resolve(this.doc) as Node | undefined;
    if (resolved === undefined) {
      throw new YamlConversionError(
        `error converting YAML to JSON: yaml: unknown anchor '${node.source}' referenced`,
      );
    }
    if (this.expanding.has(resolved)) {
      throw new YamlConversionError(
        `error converting YAML to JSON: yaml: anchor '${node.source}' value contains itself`,
      );
    }
    this.expanding.add(resolved);
    this.aliasDepth++;
    try {
      return this.toJson(resolved, target);
    } finally {
      this.aliasDepth--;
      this.expanding.delete(resolved);
    }
  }

  /** go-yaml v2 merge keys: maps are merged in place (later keys win); a sequence merges right to left. */
  private merge(out: Record<string, unknown>, node: Node, target: GoType | undefined): void {
    if (this.yaml.isSeq(node)) {
      for (let i = node.items.length - 1; i >= 0; i--) this.merge(out, node.items[i] as Node, target);
      return;
    }
    const value = this.toJson(node, target);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new YamlConversionError(
        'error converting YAML to JSON: yaml: map merge requires map or sequence of maps',
      );
    }
    Object.assign(out, value);
  }
}

/** go-yaml v2's `allowedAliasRatio`: 99% of a small document may come from aliases, 10% of a huge one. */
function allowedAliasRatio(decodeCount: number): number {
  if (decodeCount <= 400_000) return 0.99;
  if (decodeCount >= 4_000_000) return 0.1;
  return 0.99 - 0.89 * ((decodeCount - 400_000) / 3_600_000);
}

/**
 * The Go type a map entry decodes into: a map's element type, or the struct field the key names (exactly, else
 * case-insensitively, as sigs.k8s.io/yaml looks it up).
 */
function fieldTarget(target: GoType, key: string): GoType | undefined {
  if (target.kind === 'ptr') return fieldTarget(target.elem, key);
  if (target.kind === 'map') return target.elem;
  if (target.kind !== 'struct') return undefined;
  const field = goFieldName(target.fields, key);
  return field === undefined ? undefined : target.fields[field];
}

/** A scalar decoded into a Go string: sigs.k8s.io/yaml prints go-yaml's ints, floats and bools back. */
function scalarToString(node: Scalar): unknown {
  const value = scalarToJson(node);
  if (typeof value !== 'number') return goYamlScalarString(value);
  return goYamlScalarString(value, parseGoInt(String(node.value).replaceAll('_', '')));
}

function scalarToJson(node: Scalar): unknown {
  const raw = node.value;
  if (raw === null || raw === undefined) return null;
  const text = String(raw);
  const explicit = node.tag;
  if (explicit === 'tag:yaml.org,2002:str' || explicit === '!!str') return text;
  if (node.type !== 'PLAIN' && explicit === undefined) return text;
  // NaN and ±Inf are kept here: JSON cannot hold them, but a later duplicate key may still replace them.
  return resolvePlainScalar(text);
}

/**
 * Refuses the first NaN or ±Inf left in the converted value, in the order Go's JSON encoder meets them (map keys
 * sorted), with its words.
 */
function assertJsonNumbers(value: unknown): void {
  if (typeof value === 'number' && !Number.isFinite(value)) {
    throw new YamlConversionError(
      `error converting YAML to JSON: json: unsupported value: ${goFloat(value)}`,
    );
  }
  if (Array.isArray(value)) {
    for (const item of value) assertJsonNumbers(item);
  } else if (value !== null && typeof value === 'object') {
    const fields = value as Record<string, unknown>;
    // json.Marshal visits map keys in byte order and reports the first value it refuses.
    for (const key of sortInByteOrder(Object.keys(fields))) assertJsonNumbers(fields[key]);
  }
}

interface YamlParseError {
  readonly code: string;
  readonly message: string;
  readonly pos: readonly [number, number];
  readonly linePos?: readonly { line: number; col: number }[] | undefined;
}

const lineOf = (text: string, offset: number): number => text.slice(0, offset).split('\n').length;
const where = (line: number): string => (line > 1 ? `line ${line}: ` : '');

/**
 * Rephrases the `yaml` package's first error the way go-yaml words the most common mistakes (a mis-indented key,
 * a tab in the indentation, an unterminated quote, a reserved character); other errors keep the `yaml` package's
 * text. go-yaml omits the line for problems on line 1.
 */
function goYamlReason(text: string, error: YamlParseError): string {
  const line = error.linePos?.[0]?.line ?? lineOf(text, error.pos[0]);
  switch (error.code) {
    case 'BLOCK_AS_IMPLICIT_KEY':
    case 'MULTILINE_IMPLICIT_KEY': {
      const colon = /:(?=[ \t\n]|$)/g;
      colon.lastIndex = error.pos[0];
      const m = colon.exec(text);
      return `${where(m ? lineOf(text, m.index) : line)}mapping values are not allowed in this context`;
    }
    case 'TAB_AS_INDENT':
      return line > 1
        ? `line ${line}: found a tab character that violates indentation`
        : 'found character that cannot start any token';
    case 'BAD_SCALAR_START':
      return `${where(line)}found character that cannot start any token`;
    case 'MISSING_CHAR':
      if (/closing .?quote/.test(error.message)) return `${where(line)}found unexpected end of stream`;
      break;
  }
  return `line ${line}: ${error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`;
}

/**
 * Converts one YAML document (as split by {@link splitYamlDocuments}) to a JSON value with the semantics of
 * sigs.k8s.io/yaml `YAMLToJSON` on top of go-yaml v2. Parser messages come from the `yaml` package and so differ
 * from go-yaml's, but keep opm's `error converting YAML to JSON: yaml: line N:` shape. With a `target`, it is
 * `yaml.Unmarshal` into that Go type up to the JSON step: scalars bound for a Go string become strings.
 *
 * @throws YamlConversionError
 */
export function yamlDocumentToJson(text: string, target?: GoType): unknown {
  const tooDeep = yamlDepthError(text);
  if (tooDeep !== undefined) {
    throw new YamlConversionError(
      `error converting YAML to JSON: yaml: line ${tooDeep.line}: ${tooDeep.reason}`,
    );
  }
  const doc = parseGoYamlDocument(text, { schema: 'failsafe', uniqueKeys: false, strict: false });
  const error = doc.errors[0];
  if (error)
    throw new YamlConversionError(`error converting YAML to JSON: yaml: ${goYamlReason(text, error)}`);
  const decoder = new Decoder(doc);
  const value = decoder.toJson(doc.contents as Node | null, target);
  if (decoder.nonFinite) assertJsonNumbers(value);
  return value;
}
