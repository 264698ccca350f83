import { byteOrder } from '../../go-compat/go-format.js';
import { isRecord } from '../../manifest/manifest.js';

/**
 * One OpenAPI schema node of a CRD version, read as the API server decodes it (apiextensions/v1
 * `JSONSchemaProps`): only the keywords it knows, a `null` or a zero value (`""`, `false`, `[]`, `{}`) the same
 * as an absent keyword, except where the server keeps a pointer (`$ref`, bounds, `default`, `example`,
 * `x-kubernetes-preserve-unknown-fields`, the list and map types, …), whose presence counts even when zero.
 * JSON values (`default`, `example`, `enum` entries) are kept as canonical JSON text, object keys sorted.
 */
export interface Schema {
  readonly id?: string;
  readonly $schema?: string;
  readonly $ref?: string;
  readonly description?: string;
  readonly type?: string;
  readonly format?: string;
  readonly title?: string;
  readonly default?: string;
  readonly maximum?: number;
  readonly exclusiveMaximum?: true;
  readonly minimum?: number;
  readonly exclusiveMinimum?: true;
  readonly maxLength?: number;
  readonly minLength?: number;
  readonly pattern?: string;
  readonly maxItems?: number;
  readonly minItems?: number;
  readonly uniqueItems?: true;
  readonly multipleOf?: number;
  readonly enum?: readonly string[];
  readonly maxProperties?: number;
  readonly minProperties?: number;
  readonly required?: readonly string[];
  readonly items?: { readonly schema?: Schema; readonly schemas?: readonly Schema[] };
  readonly allOf?: readonly Schema[];
  readonly oneOf?: readonly Schema[];
  readonly anyOf?: readonly Schema[];
  readonly not?: Schema;
  readonly properties?: ReadonlyMap<string, Schema>;
  readonly additionalProperties?: SchemaOrBool;
  readonly patternProperties?: ReadonlyMap<string, Schema>;
  readonly dependencies?: ReadonlyMap<
    string,
    { readonly schema?: Schema; readonly property?: readonly string[] }
  >;
  readonly additionalItems?: SchemaOrBool;
  readonly definitions?: ReadonlyMap<string, Schema>;
  readonly externalDocs?: { readonly description?: string; readonly url?: string };
  readonly example?: string;
  readonly nullable?: true;
  readonly 'x-kubernetes-preserve-unknown-fields'?: boolean;
  readonly 'x-kubernetes-embedded-resource'?: true;
  readonly 'x-kubernetes-int-or-string'?: true;
  readonly 'x-kubernetes-list-map-keys'?: readonly string[];
  readonly 'x-kubernetes-list-type'?: string;
  readonly 'x-kubernetes-map-type'?: string;
  readonly 'x-kubernetes-validations'?: readonly ValidationRule[];
}

/** `additionalProperties` / `additionalItems`: `true`, `false`, or a schema (which allows). */
export interface SchemaOrBool {
  readonly allows: boolean;
  readonly schema?: Schema;
}

/** One `x-kubernetes-validations` entry, compared as a whole (its CEL is evaluated elsewhere). */
export interface ValidationRule {
  readonly rule?: string;
  readonly message?: string;
  readonly messageExpression?: string;
  readonly reason?: string;
  readonly fieldPath?: string;
  readonly optionalOldSelf?: boolean;
}

export type SchemaKeyword = keyof Schema;

/** How far a CRD's schemas are read: a catalog is untrusted input. */
export interface SchemaLimits {
  /** Deepest nesting of schema nodes (each `properties`, `items`, `allOf`, … entry is one level). */
  readonly maxDepth: number;
  /** Most schema nodes in one CRD, every version counted. */
  readonly maxNodes: number;
}

/** Far above real CRDs (the deepest generated ones nest about 30 levels, the largest hold some 20,000 nodes). */
export const DEFAULT_SCHEMA_LIMITS: SchemaLimits = { maxDepth: 100, maxNodes: 200_000 };

/** A CRD that could not be checked: over a limit, or not a CRD the API server would accept. */
export class CrdSchemaError extends Error {
  override readonly name = 'CrdSchemaError';
}

/** How the API server decodes each keyword it knows (`JSONSchemaProps`'s fields). */
type KeywordKind =
  | 'string' // a string; "" is absent
  | 'string-pointer' // a string whose presence counts, "" included
  | 'flag' // a boolean; false is absent
  | 'boolean-pointer' // a boolean whose presence counts, false included
  | 'number'
  | 'integer'
  | 'json' // any JSON value, kept as canonical text
  | 'json-list' // a list of JSON values
  | 'strings' // a list of strings; [] is absent
  | 'schema'
  | 'schemas' // a list of schemas, each walked as `<keyword>[i]`
  | 'items' // a schema, or a list of schemas
  | 'schema-or-bool'
  | 'properties' // a map of schemas, each walked as `.<name>`
  | 'schema-map' // a map of schemas, each walked as `.<keyword>[<key>]`
  | 'dependencies'
  | 'external-docs'
  | 'validation-rules';

const KEYWORDS: ReadonlyMap<string, KeywordKind> = new Map<SchemaKeyword, KeywordKind>([
  ['id', 'string'],
  ['$schema', 'string'],
  ['$ref', 'string-pointer'],
  ['description', 'string'],
  ['type', 'string'],
  ['format', 'string'],
  ['title', 'string'],
  ['default', 'json'],
  ['maximum', 'number'],
  ['exclusiveMaximum', 'flag'],
  ['minimum', 'number'],
  ['exclusiveMinimum', 'flag'],
  ['maxLength', 'integer'],
  ['minLength', 'integer'],
  ['pattern', 'string'],
  ['maxItems', 'integer'],
  ['minItems', 'integer'],
  ['uniqueItems', 'flag'],
  ['multipleOf', 'number'],
  ['enum', 'json-list'],
  ['maxProperties', 'integer'],
  ['minProperties', 'integer'],
  ['required', 'strings'],
  ['items', 'items'],
  ['allOf', 'schemas'],
  ['oneOf', 'schemas'],
  ['anyOf', 'schemas'],
  ['not', 'schema'],
  ['properties', 'properties'],
  ['additionalProperties', 'schema-or-bool'],
  ['patternProperties', 'schema-map'],
  ['dependencies', 'dependencies'],
  ['additionalItems', 'schema-or-bool'],
  ['definitions', 'schema-map'],
  ['externalDocs', 'external-docs'],
  ['example', 'json'],
  ['nullable', 'flag'],
  ['x-kubernetes-preserve-unknown-fields', 'boolean-pointer'],
  ['x-kubernetes-embedded-resource', 'flag'],
  ['x-kubernetes-int-or-string', 'flag'],
  ['x-kubernetes-list-map-keys', 'strings'],
  ['x-kubernetes-list-type', 'string-pointer'],
  ['x-kubernetes-map-type', 'string-pointer'],
  ['x-kubernetes-validations', 'validation-rules'],
]);

/** Reads the schemas of one CRD, counting nodes against the limits. */
export class SchemaReader {
  private nodes = 0;

  constructor(
    /** The CRD's name, for errors. */
    readonly crd: string,
    private readonly limits: SchemaLimits,
  ) {}

  /** Reads `openAPIV3Schema` of `version`; `undefined` (no schema) reads as no schema. */
  read(raw: unknown, version: string): Schema | undefined {
    if (raw === undefined || raw === null) return undefined;
    return this.node(raw, version, '^', 1);
  }

  private error(version: string, path: string, what: string): CrdSchemaError {
    return new CrdSchemaError(`${this.crd} ${version}: ${what} at ${displayPath(path)}`);
  }

  private node(raw: unknown, version: string, path: string, depth: number): Schema {
    if (!isRecord(raw)) throw this.error(version, path, 'schema is not an object');
    if (depth > this.limits.maxDepth) {
      throw this.error(version, path, `schema nests deeper than ${this.limits.maxDepth} levels`);
    }
    this.nodes++;
    if (this.nodes > this.limits.maxNodes) {
      throw this.error(version, path, `schema has more than ${this.limits.maxNodes} nodes`);
    }
    const out: Record<string, unknown> = {};
    // Only the keys the node has: most nodes hold two or three of the 44 keywords.
    for (const keyword of Object.keys(raw)) {
      const kind = KEYWORDS.get(keyword);
      const value = raw[keyword];
      if (kind === undefined || value === undefined || value === null) continue;
      const read = this.keyword(kind, keyword, value, version, path, depth);
      if (read !== undefined) out[keyword] = read;
    }
    return out as Schema;
  }

  /**
   * A JSON value (`default`, `example`, an `enum` entry) as canonical text, its values counted against the
   * same limits as schema nodes: the value is as untrusted as the schema holding it.
   */
  private json(value: unknown, version: string, path: string, depth: number): string {
    if (depth > this.limits.maxDepth) {
      throw this.error(version, path, `value nests deeper than ${this.limits.maxDepth} levels`);
    }
    this.nodes++;
    if (this.nodes > this.limits.maxNodes) {
      throw this.error(version, path, `schema has more than ${this.limits.maxNodes} nodes`);
    }
    if (Array.isArray(value))
      return `[${value.map((v) => this.json(v, version, path, depth + 1)).join(',')}]`;
    if (isRecord(value)) {
      const keys = Object.keys(value).sort(byteOrder);
      return `{${keys.map((k) => `${JSON.stringify(k)}:${this.json(value[k], version, path, depth + 1)}`).join(',')}}`;
    }
    return JSON.stringify(value) ?? 'null';
  }

  /** One keyword's value as the server decodes it; `undefined` where that equals its absence. */
  private keyword(
    kind: KeywordKind,
    keyword: string,
    value: unknown,
    version: string,
    path: string,
    depth: number,
  ): unknown {
    const invalid = (what: string) => this.error(version, path, `${keyword} ${what}`);
    const child = (v: unknown, segment: string): Schema =>
      this.node(v, version, `${path}${segment}`, depth + 1);
    const record = (v: unknown): Record<string, unknown> => {
      if (!isRecord(v)) throw invalid('is not an object');
      return v;
    };
    const list = (v: unknown): unknown[] => {
      if (!Array.isArray(v)) throw invalid('is not a list');
      return v;
    };
    switch (kind) {
      case 'string':
      case 'string-pointer':
        if (typeof value !== 'string') throw invalid('is not a string');
        return kind === 'string' && value === '' ? undefined : value;
      case 'flag':
      case 'boolean-pointer':
        if (typeof value !== 'boolean') throw invalid('is not a boolean');
        return kind === 'flag' && !value ? undefined : value;
      case 'number':
        if (typeof value !== 'number') throw invalid('is not a number');
        return value;
      case 'integer':
        if (typeof value !== 'number' || !Number.isInteger(value)) throw invalid('is not an integer');
        return value;
      case 'json':
        return this.json(value, version, `${path}.${keyword}`, 1);
      case 'json-list': {
        const values = list(value);
        return values.length === 0
          ? undefined
          : values.map((v, i) => this.json(v, version, `${path}.${keyword}[${i}]`, 1));
      }
      case 'strings': {
        const values = list(value);
        if (values.some((v) => typeof v !== 'string')) throw invalid('is not a list of strings');
        return values.length === 0 ? undefined : values;
      }
      case 'schema':
        return child(value, `.${keyword}`);
      case 'schemas': {
        const values = list(value);
        return values.length === 0 ? undefined : values.map((v, i) => child(v, `.${keyword}[${i}]`));
      }
      case 'items':
        // crdify walks a single items schema as `.items` and a tuple's entries as `.items[i]`.
        return Array.isArray(value)
          ? { schemas: value.map((v, i) => child(v, `.items[${i}]`)) }
          : { schema: child(value, '.items') };
      case 'schema-or-bool':
        return typeof value === 'boolean'
          ? { allows: value }
          : { allows: true, schema: child(value, `.${keyword}`) };
      case 'properties':
      case 'schema-map': {
        const entries = record(value);
        const keys = Object.keys(entries);
        if (keys.length === 0) return undefined;
        const segment = (key: string) => (kind === 'properties' ? `.${key}` : `.${keyword}[${key}]`);
        return new Map(keys.map((key) => [key, child(entries[key], segment(key))]));
      }
      case 'dependencies': {
        const entries = record(value);
        const keys = Object.keys(entries);
        if (keys.length === 0) return undefined;
        return new Map(
          keys.map((key): [string, { schema?: Schema; property?: string[] }] => {
            const entry = entries[key];
            if (!Array.isArray(entry)) return [key, { schema: child(entry, `.dependencies[${key}]`) }];
            if (entry.some((v) => typeof v !== 'string')) throw invalid('lists a non-string');
            return [key, { property: entry as string[] }];
          }),
        );
      }
      case 'external-docs': {
        const docs = record(value);
        return {
          ...(typeof docs.description === 'string' && docs.description !== ''
            ? { description: docs.description }
            : {}),
          ...(typeof docs.url === 'string' && docs.url !== '' ? { url: docs.url } : {}),
        };
      }
      case 'validation-rules': {
        const rules = list(value);
        if (!rules.every(isRecord)) throw invalid('is not a list of rules');
        return rules.length === 0 ? undefined : rules.map(validationRule);
      }
    }
  }
}

function validationRule(raw: Record<string, unknown>): ValidationRule {
  const text = (key: string) =>
    typeof raw[key] === 'string' && raw[key] !== '' ? { [key]: raw[key] as string } : {};
  return {
    ...text('rule'),
    ...text('message'),
    ...text('messageExpression'),
    ...(typeof raw.reason === 'string' ? { reason: raw.reason } : {}),
    ...text('fieldPath'),
    ...(typeof raw.optionalOldSelf === 'boolean' ? { optionalOldSelf: raw.optionalOldSelf } : {}),
  };
}

const canonicalCache = new WeakMap<object, string>();

/** A text equal for two normalized values exactly when the API server's semantic equality holds. */
export function canonicalValue(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const cached = canonicalCache.get(value);
  if (cached !== undefined) return cached;
  let text: string;
  if (Array.isArray(value)) text = `[${value.map(canonicalValue).join(',')}]`;
  else if (value instanceof Map) {
    const keys = [...value.keys()].sort(byteOrder);
    text = `M{${keys.map((k) => `${JSON.stringify(k)}:${canonicalValue(value.get(k))}`).join(',')}}`;
  } else {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((k) => record[k] !== undefined)
      .sort(byteOrder);
    text = `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalValue(record[k])}`).join(',')}}`;
  }
  canonicalCache.set(value, text);
  return text;
}

/**
 * Whether two normalized values are equal: what {@link canonicalValue} says, without writing them out (most
 * nodes of an upgrade are unchanged, and their descriptions are long).
 */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => sameValue(v, b[i]));
  }
  if (a instanceof Map || b instanceof Map) {
    if (!(a instanceof Map) || !(b instanceof Map) || a.size !== b.size) return false;
    for (const [key, value] of a) if (!b.has(key) || !sameValue(value, b.get(key))) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x).filter((k) => x[k] !== undefined);
  if (keys.length !== Object.keys(y).filter((k) => y[k] !== undefined).length) return false;
  return keys.every((k) => sameValue(x[k], y[k]));
}

/**
 * Every node of a schema by crdify's location (`^.spec.size`, `^.spec.list.items`, `^.spec.x.anyOf[0]`,
 * `^.spec.labels.additionalProperties`), as OLM v1's preflight flattens a version before comparing it.
 * Every keyword that holds schemas is walked: `properties`, `items`, `allOf`/`anyOf`/`oneOf`, `not`,
 * `additionalProperties`, `patternProperties`, `additionalItems`, `definitions` and `dependencies`.
 */
export function flattenSchema(root: Schema | undefined): ReadonlyMap<string, Schema> {
  if (root === undefined) return new Map();
  const cached = flattened.get(root);
  if (cached !== undefined) return cached;
  const flat = new Map<string, Schema>();
  const visitAll = (nodes: readonly Schema[] | undefined, path: string) => {
    if (nodes === undefined) return;
    for (let i = 0; i < nodes.length; i++) visit(nodes[i] as Schema, `${path}[${i}]`);
  };
  const visit = (node: Schema, path: string) => {
    flat.set(path, node);
    if (node.items?.schema) visit(node.items.schema, `${path}.items`);
    visitAll(node.items?.schemas, `${path}.items`);
    visitAll(node.allOf, `${path}.allOf`);
    visitAll(node.anyOf, `${path}.anyOf`);
    visitAll(node.oneOf, `${path}.oneOf`);
    if (node.not) visit(node.not, `${path}.not`);
    if (node.properties) for (const [name, s] of node.properties) visit(s, `${path}.${name}`);
    if (node.additionalProperties?.schema) {
      visit(node.additionalProperties.schema, `${path}.additionalProperties`);
    }
    if (node.patternProperties) {
      for (const [key, s] of node.patternProperties) visit(s, `${path}.patternProperties[${key}]`);
    }
    if (node.additionalItems?.schema) visit(node.additionalItems.schema, `${path}.additionalItems`);
    if (node.definitions) for (const [key, s] of node.definitions) visit(s, `${path}.definitions[${key}]`);
    if (node.dependencies) {
      for (const [key, d] of node.dependencies) if (d.schema) visit(d.schema, `${path}.dependencies[${key}]`);
    }
  };
  visit(root, '^');
  flattened.set(root, flat);
  return flat;
}

/** Each schema is flattened once, however many versions and served pairs compare it. */
const flattened = new WeakMap<Schema, ReadonlyMap<string, Schema>>();

/** A crdify location as reports show it: `spec.size`; the root is `<root>`. */
export function displayPath(path: string): string {
  if (path === '^') return '<root>';
  return path.startsWith('^.') ? path.slice(2) : path;
}

/** Whether `path` lies beneath `ancestor` (a child, item, branch, … of it at any depth). */
export function isBeneath(path: string, ancestor: string): boolean {
  return (
    path.length > ancestor.length && path.startsWith(ancestor) && '.['.includes(path[ancestor.length] ?? '')
  );
}
