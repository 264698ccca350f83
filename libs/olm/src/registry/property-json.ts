import { goJsonString } from '../catalog/go-json-encode.js';

/**
 * A property value as opm serves it: compact JSON with the keys in the order they were read (opm keeps each
 * value as raw JSON and only compacts it) and without HTML escaping.
 */
export function compactJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return goJsonString(value);
  if (typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(compactJson).join(',')}]`;
  if (value instanceof Map) {
    const parts = [...value.entries()]
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${goJsonString(String(k))}:${compactJson(v)}`);
    return `{${parts.join(',')}}`;
  }
  const parts = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${goJsonString(k)}:${compactJson(v)}`);
  return `{${parts.join(',')}}`;
}
