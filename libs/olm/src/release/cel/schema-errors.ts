import type { RuleOutcome } from './outcome.js';
import { join, pathText } from './paths.js';
import { type CrdSchema, isRecord, mapValueSchema } from './schema.js';

/**
 * Where the object breaks the plainest parts of its schema, which the API server checks before any rule:
 * required fields and types.
 */
export function schemaErrors(schema: CrdSchema, value: unknown, path: string, root: boolean): RuleOutcome[] {
  if (value === undefined) return [];
  const at = pathText(path);
  if (value === null) {
    return schema.nullable || schema.type === undefined
      ? []
      : [
          {
            kind: 'schema',
            path: at,
            message: `${at}: Invalid value: "null": ${at} in body must be of type ${schema.type}: "null"`,
          },
        ];
  }
  const actual = jsonType(value);
  const expected = schema.type;
  if (schema['x-kubernetes-int-or-string']) {
    if (actual === 'integer' || actual === 'string') return [];
    return [
      {
        kind: 'schema',
        path: at,
        message: `${at}: Invalid value: "${actual}": ${at} in body must be of type integer,string: "${actual}"`,
      },
    ];
  }
  if (expected !== undefined && expected !== actual && !(expected === 'number' && actual === 'integer')) {
    return [
      {
        kind: 'schema',
        path: at,
        message: `${at}: Invalid value: "${actual}": ${at} in body must be of type ${expected}: "${actual}"`,
      },
    ];
  }
  const out: RuleOutcome[] = [];
  if (isRecord(value)) {
    for (const name of schema.required ?? []) {
      if (!(name in value))
        out.push({ kind: 'schema', path: join(path, name), message: `${join(path, name)}: Required value` });
    }
    for (const [key, child] of Object.entries(schema.properties ?? {})) {
      if (root && key === 'metadata') continue;
      out.push(...schemaErrors(child, value[key], join(path, key), false));
    }
    const values = mapValueSchema(schema);
    if (values !== undefined) {
      for (const [key, child] of Object.entries(value)) {
        if (schema.properties?.[key] === undefined)
          out.push(...schemaErrors(values, child, `${path}[${key}]`, false));
      }
    }
  } else if (Array.isArray(value) && schema.items !== undefined) {
    value.forEach((item, i) => {
      out.push(...schemaErrors(schema.items as CrdSchema, item, `${path}[${i}]`, false));
    });
  }
  return out;
}

function jsonType(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'object') return 'object';
  return typeof value;
}
