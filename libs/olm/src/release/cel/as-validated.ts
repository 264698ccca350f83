import { type CrdSchema, isRecord, mapValueSchema } from './schema.js';

/**
 * The object as the API server validates it, which is not quite as it was sent: a field or map value that is
 * `null` where its schema is not `nullable` is dropped first (apiextensions' pruning of non-nullable nulls), then
 * every field of an object that is absent and has a `default` in its schema gets that default, itself defaulted
 * in turn. Array items keep their nulls, as there. Returns a copy; the input is not changed.
 */
export function asValidated(schema: CrdSchema, value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = schema.items;
    return items === undefined ? value : value.map((item) => asValidated(items, item));
  }
  if (!isRecord(value)) return value;
  const values = mapValueSchema(schema);
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const fieldSchema = schema.properties?.[key] ?? values;
    if (fieldSchema === undefined) out[key] = child;
    else if (child !== null || fieldSchema.nullable) out[key] = asValidated(fieldSchema, child);
  }
  for (const [key, fieldSchema] of Object.entries(schema.properties ?? {})) {
    if (!(key in out) && fieldSchema.default !== undefined) {
      out[key] = asValidated(fieldSchema, structuredClone(fieldSchema.default));
    }
  }
  return out;
}
