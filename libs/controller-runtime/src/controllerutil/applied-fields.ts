import type { KubeObject } from '../object.js';

/** A server-side apply field set (`fieldsV1`): `f:<field>`, `k:<list key>`, `v:<set value>`, `i:<index>`. */
type FieldSet = { readonly [key: string]: FieldSet };

interface ManagedFieldsEntry {
  readonly manager?: string;
  readonly operation?: string;
  readonly subresource?: string;
  readonly fieldsV1?: FieldSet;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The element of a list that a `k:{…}` key names; a key field the element leaves out matches (defaulted). */
function elementWithKey(list: readonly unknown[], key: Record<string, unknown>): unknown {
  return list.find(
    (item) =>
      isRecord(item) && Object.entries(key).every(([k, v]) => item[k] === undefined || sameJson(item[k], v)),
  );
}

function missingIn(fields: FieldSet, value: unknown, path: string, found: string[]): void {
  for (const [key, children] of Object.entries(fields)) {
    if (key === '.') continue;
    const kind = key.slice(0, 2);
    const rest = key.slice(2);
    let child: unknown;
    if (kind === 'f:') child = isRecord(value) ? value[rest] : undefined;
    else if (kind === 'k:')
      child = Array.isArray(value) ? elementWithKey(value, JSON.parse(rest)) : undefined;
    else if (kind === 'v:') {
      const wanted: unknown = JSON.parse(rest);
      child = Array.isArray(value) ? value.find((item) => sameJson(item, wanted)) : undefined;
    } else if (kind === 'i:') child = Array.isArray(value) ? value[Number(rest)] : undefined;
    else continue; // a key form this code does not know: never a reason to write
    const at = kind === 'f:' ? `${path}.${rest}` : `${path}[${rest}]`;
    if (child === undefined) found.push(at);
    else missingIn(children, child, at, found);
  }
}

/**
 * The fields `manager` applied to `live` last time (its server-side apply entry in managedFields) that
 * `desired` no longer sets, e.g. `.spec.template.spec.containers[{"name":"memcached"}].resources.limits`:
 * applying `desired` would remove them, so a controller that stopped setting a field must apply even though
 * `live` already has everything `desired` says. Empty when `live` carries no such entry.
 */
export function droppedAppliedFields(live: KubeObject, desired: KubeObject, manager: string): string[] {
  const entries = (live.metadata.managedFields ?? []) as ManagedFieldsEntry[];
  const found: string[] = [];
  for (const entry of entries) {
    if (entry.manager !== manager || entry.operation !== 'Apply' || entry.subresource || !entry.fieldsV1)
      continue;
    missingIn(entry.fieldsV1, desired, '', found);
  }
  return found;
}
