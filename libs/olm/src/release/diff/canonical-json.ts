import { byteOrder } from '../../go-compat/go-format.js';

/**
 * A JSON value's text with every object's keys in Go's byte order, at every depth: two values that mean the same
 * (the same keys, in any order) have the same text, so the diff compares meaning and not how a file spelled it.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((k) => record[k] !== undefined)
      .sort(byteOrder);
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`).join(',')}}`;
  }
  // `undefined` (a property without a value) reads as JSON null.
  return JSON.stringify(value) ?? 'null';
}
