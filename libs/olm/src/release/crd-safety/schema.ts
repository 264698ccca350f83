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
    const invalid = (keyword: string, what: string) => this.error(version, path, `${keyword} ${what}`);
    const child = (value: unknown, segment: string): Schema =>
      this.node(value, version, `${path}${segment}`, depth + 1);
    const string = (keyword: string, keep: 'nonzero' | 'present') => {
      const value = raw[keyword];
      if (value === undefined || value === null) return;
      if (typeof value !== 'string') throw invalid(keyword, 'is not a string');
      if (keep === 'present' || value !== '') out[keyword] = value;
    };
    const flag = (keyword: string) => {
      const value = raw[keyword];
      if (value === undefined || value === null) return;
      if (typeof value !== 'boolean') throw invalid(keyword, 'is not a boolean');
      if (value) out[keyword] = true;
    };
    const number = (keyword: string, integer: boolean) => {
      const value = raw[keyword];
      if (value === undefined || value === null) return;
      if (typeof value !== 'number' || (integer && !Number.isInteger(value))) {
        throw invalid(keyword, integer ? 'is not an integer' : 'is not a number');
      }
      out[keyword] = value;
    };
    const json = (keyword: string) => {
      const value = raw[keyword];
      if (value !== undefined && value !== null) out[keyword] = canonicalJson(value);
    };
    const strings = (keyword: string) => {
      const value = raw[keyword];
      if (value === undefined || value === null) return;
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
        throw invalid(keyword, 'is not a list of strings');
      }
      if (value.length > 0) out[keyword] = value as string[];
    };
    const list = (keyword: string) => {
      const value = raw[keyword];
      if (value === undefined || value === null) return;
      if (!Array.isArray(value)) throw invalid(keyword, 'is not a list');
      if (value.length > 0) out[keyword] = value.map((v, i) => child(v, `.${keyword}[${i}]`));
    };
    const map = (keyword: string, segment: (key: string) => string) => {
      const value = raw[keyword];
      if (value === undefined || value === null) return;
      if (!isRecord(value)) throw invalid(keyword, 'is not an object');
      const entries = Object.keys(value).map((key) => [key, child(value[key], segment(key))] as const);
      if (entries.length > 0) out[keyword] = new Map(entries);
    };
    const schemaOrBool = (keyword: string) => {
      const value = raw[keyword];
      if (value === undefined || value === null) return;
      if (typeof value === 'boolean') out[keyword] = { allows: value };
      else out[keyword] = { allows: true, schema: child(value, `.${keyword}`) };
    };

    string('id', 'nonzero');
    string('$schema', 'nonzero');
    string('$ref', 'present');
    string('description', 'nonzero');
    string('type', 'nonzero');
    string('format', 'nonzero');
    string('title', 'nonzero');
    json('default');
    number('maximum', false);
    flag('exclusiveMaximum');
    number('minimum', false);
    flag('exclusiveMinimum');
    number('maxLength', true);
    number('minLength', true);
    string('pattern', 'nonzero');
    number('maxItems', true);
    number('minItems', true);
    flag('uniqueItems');
    number('multipleOf', false);
    if (raw.enum !== undefined && raw.enum !== null) {
      if (!Array.isArray(raw.enum)) throw invalid('enum', 'is not a list');
      if (raw.enum.length > 0) out.enum = raw.enum.map((v) => canonicalJson(v));
    }
    number('maxProperties', true);
    number('minProperties', true);
    strings('required');
    if (raw.items !== undefined && raw.items !== null) {
      // crdify walks a single items schema as `.items` and a tuple's entries as `.items[i]`.
      out.items = Array.isArray(raw.items)
        ? { schemas: raw.items.map((v, i) => child(v, `.items[${i}]`)) }
        : { schema: child(raw.items, '.items') };
    }
    list('allOf');
    list('oneOf');
    list('anyOf');
    if (raw.not !== undefined && raw.not !== null) out.not = child(raw.not, '.not');
    map('properties', (key) => `.${key}`);
    schemaOrBool('additionalProperties');
    map('patternProperties', (key) => `.patternProperties[${key}]`);
    if (raw.dependencies !== undefined && raw.dependencies !== null) {
      const value = raw.dependencies;
      if (!isRecord(value)) throw invalid('dependencies', 'is not an object');
      const entries = Object.keys(value).map((key) => {
        const entry = value[key];
        if (Array.isArray(entry)) {
          if (entry.some((v) => typeof v !== 'string')) throw invalid('dependencies', 'lists a non-string');
          return [key, { property: entry as string[] }] as [string, { schema?: Schema; property?: string[] }];
        }
        return [key, { schema: child(entry, `.dependencies[${key}]`) }] as [
          string,
          { schema?: Schema; property?: string[] },
        ];
      });
      if (entries.length > 0) out.dependencies = new Map(entries);
    }
    schemaOrBool('additionalItems');
    map('definitions', (key) => `.definitions[${key}]`);
    if (raw.externalDocs !== undefined && raw.externalDocs !== null) {
      const docs = raw.externalDocs;
      if (!isRecord(docs)) throw invalid('externalDocs', 'is not an object');
      out.externalDocs = {
        ...(typeof docs.description === 'string' && docs.description !== ''
          ? { description: docs.description }
          : {}),
        ...(typeof docs.url === 'string' && docs.url !== '' ? { url: docs.url } : {}),
      };
    }
    json('example');
    flag('nullable');
    const preserve = raw['x-kubernetes-preserve-unknown-fields'];
    if (preserve !== undefined && preserve !== null) {
      if (typeof preserve !== 'boolean')
        throw invalid('x-kubernetes-preserve-unknown-fields', 'is not a boolean');
      out['x-kubernetes-preserve-unknown-fields'] = preserve;
    }
    flag('x-kubernetes-embedded-resource');
    flag('x-kubernetes-int-or-string');
    strings('x-kubernetes-list-map-keys');
    string('x-kubernetes-list-type', 'present');
    string('x-kubernetes-map-type', 'present');
    const rules = raw['x-kubernetes-validations'];
    if (rules !== undefined && rules !== null) {
      if (!Array.isArray(rules) || !rules.every(isRecord)) {
        throw invalid('x-kubernetes-validations', 'is not a list of rules');
      }
      if (rules.length > 0) out['x-kubernetes-validations'] = rules.map(validationRule);
    }
    return out as Schema;
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

/** JSON text with object keys in byte order: one text per value, whatever order the manifest had. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value).sort(byteOrder);
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
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
 * Every node of a schema by crdify's location (`^.spec.size`, `^.spec.list.items`, `^.spec.x.anyOf[0]`,
 * `^.spec.labels.additionalProperties`), as OLM v1's preflight flattens a version before comparing it.
 * Every keyword that holds schemas is walked: `properties`, `items`, `allOf`/`anyOf`/`oneOf`, `not`,
 * `additionalProperties`, `patternProperties`, `additionalItems`, `definitions` and `dependencies`.
 */
export function flattenSchema(root: Schema | undefined): Map<string, Schema> {
  const flat = new Map<string, Schema>();
  const visit = (node: Schema, path: string) => {
    flat.set(path, node);
    if (node.items?.schema) visit(node.items.schema, `${path}.items`);
    node.items?.schemas?.forEach((s, i) => {
      visit(s, `${path}.items[${i}]`);
    });
    node.allOf?.forEach((s, i) => {
      visit(s, `${path}.allOf[${i}]`);
    });
    node.anyOf?.forEach((s, i) => {
      visit(s, `${path}.anyOf[${i}]`);
    });
    node.oneOf?.forEach((s, i) => {
      visit(s, `${path}.oneOf[${i}]`);
    });
    if (node.not) visit(node.not, `${path}.not`);
    for (const [name, s] of node.properties ?? []) visit(s, `${path}.${name}`);
    if (node.additionalProperties?.schema) {
      visit(node.additionalProperties.schema, `${path}.additionalProperties`);
    }
    for (const [key, s] of node.patternProperties ?? []) visit(s, `${path}.patternProperties[${key}]`);
    if (node.additionalItems?.schema) visit(node.additionalItems.schema, `${path}.additionalItems`);
    for (const [key, s] of node.definitions ?? []) visit(s, `${path}.definitions[${key}]`);
    for (const [key, d] of node.dependencies ?? []) {
      if (d.schema) visit(d.schema, `${path}.dependencies[${key}]`);
    }
  };
  if (root) visit(root, '^');
  return flat;
}

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
