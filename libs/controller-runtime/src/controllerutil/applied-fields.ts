import { isRecord } from '../internal/is-record.js';
import type { KubeObject } from '../object.js';
import { rememberParsed } from './parsed-texts.js';

/** A server-side apply field set (`fieldsV1`): `f:<field>`, `k:<list key>`, `v:<set value>`, `i:<index>`. */
type FieldSet = { readonly [key: string]: FieldSet };

interface ManagedFieldsEntry {
  readonly manager?: string;
  readonly operation?: string;
  readonly subresource?: string;
  readonly fieldsV1?: FieldSet;
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  return typeof a === 'object' && typeof b === 'object' && JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The value a `k:` or `v:` key spells, by its text: every object of a kind has the same few keys (the
 * container's name, the port). Longer keys (a whole object as a set value) are parsed each time.
 */
const keyValue = rememberParsed((text): unknown => JSON.parse(text), { maxLength: 256 });

/** The element of a list that a `k:{…}` key names; a key field the element leaves out matches (defaulted). */
function elementWithKey(list: readonly unknown[], key: Record<string, unknown>): unknown {
  return list.find(
    (item) =>
      isRecord(item) && Object.entries(key).every(([k, v]) => item[k] === undefined || sameJson(item[k], v)),
  );
}

/** Adds to `found` the path of each field of `fields` that `value` lacks, joining `path` only for those. */
function missingIn(fields: FieldSet, value: unknown, path: string[], found: string[]): void {
  if (!isRecord(fields)) return; // not a field set (a malformed entry): nothing to find in it
  for (const key of Object.keys(fields)) {
    const form = key.slice(0, 2);
    const text = key.slice(2);
    let child: unknown;
    if (form === 'f:') child = isRecord(value) ? value[text] : undefined;
    else if (form !== 'k:' && form !== 'v:' && form !== 'i:')
      continue; // `.`, or a key form this code does not know: never a reason to write
    else if (!Array.isArray(value)) child = undefined;
    else if (form === 'k:') child = elementWithKey(value, keyValue(text) as Record<string, unknown>);
    else if (form === 'v:') {
      const wanted = keyValue(text);
      child = value.find((item) => sameJson(item, wanted));
    } else child = value[Number(text)];
    path.push(form === 'f:' ? '.' : '[', text, form === 'f:' ? '' : ']');
    if (child === undefined) found.push(path.join(''));
    else missingIn(fields[key] as FieldSet, child, path, found);
    path.length -= 3;
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
    missingIn(entry.fieldsV1, desired, [], found);
  }
  return found;
}
