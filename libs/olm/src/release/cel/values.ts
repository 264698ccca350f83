import type { CelInput } from '@bufbuild/cel';
import { create } from '@bufbuild/protobuf';
import { DurationSchema, timestampFromDate } from '@bufbuild/protobuf/wkt';
import { type CrdSchema, isRecord, mapValueSchema } from './schema.js';

/**
 * A JSON value as the CEL value Kubernetes binds for it, typed by its schema: `integer` as int, `number` as
 * double (even when written without a fraction), `date-time`/`date` strings as timestamps, `duration` strings
 * as durations, `byte` strings as bytes, int-or-string by what it holds, and anything the schema leaves open
 * (`x-kubernetes-preserve-unknown-fields`, embedded resources) by its JSON shape, whole numbers as int.
 * `root` limits the object's `metadata` to `name` and `generateName`, the only fields rules may read there.
 */
export function celValueOf(value: unknown, schema: CrdSchema | undefined, root = false): CelInput {
  if (value === null || value === undefined) return null;
  if (schema === undefined || schema['x-kubernetes-int-or-string']) return untyped(value);
  if (Array.isArray(value)) return value.map((v) => celValueOf(v, schema.items));
  if (isRecord(value)) {
    const entries = new Map<string, CelInput>();
    const values = mapValueSchema(schema);
    const open = schema['x-kubernetes-preserve-unknown-fields'] || schema['x-kubernetes-embedded-resource'];
    for (const [key, v] of Object.entries(value)) {
      if (root && key === 'metadata' && isRecord(v)) {
        const meta = new Map<string, CelInput>();
        for (const k of ['name', 'generateName']) if (typeof v[k] === 'string') meta.set(k, v[k]);
        entries.set(key, meta);
        continue;
      }
      const property = schema.properties?.[key];
      if (property !== undefined) entries.set(key, celValueOf(v, property));
      else if (values !== undefined) entries.set(key, celValueOf(v, values));
      else if (open || schema.properties === undefined) entries.set(key, untyped(v));
      // Any other field is pruned by the API server before rules run.
    }
    return entries;
  }
  if (typeof value === 'number') {
    if (schema.type === 'integer' && Number.isInteger(value)) return BigInt(value);
    return schema.type === 'number' ? value : untyped(value);
  }
  if (typeof value === 'string') {
    if (schema.type !== 'string') return value;
    switch (schema.format) {
      case 'date-time':
      case 'date': {
        const date = new Date(value);
        return Number.isNaN(date.getTime()) ? value : timestampFromDate(date);
      }
      case 'duration':
        return durationOf(value) ?? value;
      case 'byte':
        return new Uint8Array(Buffer.from(value, 'base64'));
      default:
        return value;
    }
  }
  return untyped(value);
}

/** A value no schema types, by its JSON shape: whole numbers as int, other numbers as double. */
function untyped(value: unknown): CelInput {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (Array.isArray(value)) return value.map(untyped);
  if (isRecord(value)) return new Map(Object.entries(value).map(([k, v]) => [k, untyped(v)] as const));
  return null;
}

const DURATION_PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/gy;
const NANOS: Record<string, number> = { ns: 1, us: 1e3, µs: 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/** A Go duration string (`1h30m`, `-1.5s`) as a protobuf Duration, or undefined when it is not one. */
function durationOf(text: string): CelInput | undefined {
  const negative = text.startsWith('-');
  const body = text.replace(/^[-+]/, '');
  if (body === '0') return create(DurationSchema, {});
  DURATION_PART.lastIndex = 0;
  let nanos = 0n;
  let consumed = 0;
  for (let m = DURATION_PART.exec(body); m !== null; m = DURATION_PART.exec(body)) {
    nanos += BigInt(Math.round(Number(m[1]) * (NANOS[m[2] as string] as number)));
    consumed = DURATION_PART.lastIndex;
  }
  if (consumed === 0 || consumed !== body.length) return undefined;
  if (negative) nanos = -nanos;
  return create(DurationSchema, { seconds: nanos / 1_000_000_000n, nanos: Number(nanos % 1_000_000_000n) });
}
