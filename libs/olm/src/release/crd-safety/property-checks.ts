import { byteOrder } from '../../go-compat/go-format.js';
import { canonicalValue, type Schema, type SchemaKeyword, sameValue } from './schema.js';

/**
 * The checks OLM v1's CRD upgrade-safety preflight (operator-controller v1.11.0, which runs crdify's
 * validations) applies to one schema node of a version, old against new, and what each refuses. The preflight
 * configures crdify as: `description` not enforced; `enum` with `additionPolicy: Allow`; every other
 * validation at its default, enforced as an error (`default`, `maximum`/`minimum` and the `max*`/`min*` bounds,
 * `pattern` with `removalPolicy: Disallow`, `nullable` with both policies `Disallow`, `oneOf` with both
 * `Disallow`, `required`, `type`); and any other difference of the node (`format`, `anyOf`,
 * `x-kubernetes-validations`, …) is an "unhandled" change, refused too.
 */
export type PropertyRule =
  | 'type-changed'
  | 'enum-narrowed'
  | 'required-added'
  | 'default-added'
  | 'default-removed'
  | 'default-changed'
  | 'bounds-tightened'
  | 'pattern-changed'
  | 'nullable-changed'
  | 'one-of-changed'
  | 'unhandled-change';

/** One difference of a schema node that OLM v1's preflight refuses. */
export interface PropertyChange {
  readonly rule: PropertyRule;
  /** The crdify validation that refuses it in OLM v1 (`type`, `enum`, …, `unhandled`). */
  readonly check: string;
  /** What changed, said after the field's path: `type changed integer → string`. */
  readonly detail: string;
  /**
   * The values the check compared, old and new: two changes with the same key are the same difference (crdify
   * subtracts differences between served versions that the previous CRD already had by its message, which is
   * made of these values).
   */
  readonly key: string;
}

/** The node's own keywords: crdify compares each node without its `properties` and `items`, walked apart. */
export function ownKeywords(node: Schema): Schema {
  const { properties: _properties, items: _items, ...own } = node;
  return own;
}

type Change = Omit<PropertyChange, 'key'>;

interface Check {
  readonly name: string;
  readonly keywords: readonly SchemaKeyword[];
  compare(a: Schema, b: Schema): Change[];
}

const list = (values: readonly string[]) => [...values].sort(byteOrder).join(', ');

function typeName(node: Schema): string {
  if (node.type !== undefined) return node.type;
  return node['x-kubernetes-int-or-string'] ? 'int-or-string (no type)' : '(no type)';
}

function bound(
  name:
    | 'maximum'
    | 'maxLength'
    | 'maxItems'
    | 'maxProperties'
    | 'minimum'
    | 'minLength'
    | 'minItems'
    | 'minProperties',
): Check {
  const upper = name.startsWith('max');
  return {
    name,
    keywords: [name],
    compare(a, b) {
      const older = a[name];
      const newer = b[name];
      if (newer === undefined) return [];
      if (older === undefined)
        return [{ rule: 'bounds-tightened', check: name, detail: `${name} ${newer} added` }];
      const tighter = upper ? newer < older : newer > older;
      if (!tighter) return [];
      const verb = upper ? 'decreased' : 'increased';
      return [{ rule: 'bounds-tightened', check: name, detail: `${name} ${verb} ${older} → ${newer}` }];
    },
  };
}

/** A oneOf branch as crdify compares it: without its own description, title, example and external docs. */
function branchText(node: Schema): string {
  const { description: _d, title: _t, example: _e, externalDocs: _x, ...rest } = node;
  return canonicalValue(rest);
}

const CHECKS: readonly Check[] = [
  // OLM v1 does not enforce crdify's `description` validation: description changes never block an upgrade.
  { name: 'description', keywords: ['description'], compare: () => [] },
  {
    name: 'type',
    keywords: ['type'],
    compare: (a, b) =>
      a.type === b.type
        ? []
        : [{ rule: 'type-changed', check: 'type', detail: `type changed ${typeName(a)} → ${typeName(b)}` }],
  },
  {
    // additionPolicy Allow: new values are fine; removed values and a new enum constraint are refused.
    name: 'enum',
    keywords: ['enum'],
    compare(a, b) {
      const older = new Set(a.enum ?? []);
      const newer = new Set(b.enum ?? []);
      if (older.size === 0 && newer.size > 0) {
        return [
          { rule: 'enum-narrowed', check: 'enum', detail: `enum constraint added: ${list([...newer])}` },
        ];
      }
      const removed = [...older].filter((v) => !newer.has(v));
      if (removed.length === 0) return [];
      return [{ rule: 'enum-narrowed', check: 'enum', detail: `enum values removed: ${list(removed)}` }];
    },
  },
  {
    name: 'required',
    keywords: ['required'],
    compare(a, b) {
      const older = new Set(a.required ?? []);
      const added = (b.required ?? []).filter((name) => !older.has(name));
      if (added.length === 0) return [];
      return [
        {
          rule: 'required-added',
          check: 'required',
          detail: `requires new fields: ${list([...new Set(added)])}`,
        },
      ];
    },
  },
  {
    name: 'default',
    keywords: ['default'],
    compare(a, b) {
      if (a.default === b.default) return [];
      if (a.default === undefined) {
        return [{ rule: 'default-added', check: 'default', detail: `default ${b.default} added` }];
      }
      if (b.default === undefined) {
        return [{ rule: 'default-removed', check: 'default', detail: `default ${a.default} removed` }];
      }
      return [
        { rule: 'default-changed', check: 'default', detail: `default changed ${a.default} → ${b.default}` },
      ];
    },
  },
  bound('maximum'),
  bound('maxLength'),
  bound('maxItems'),
  bound('maxProperties'),
  bound('minimum'),
  bound('minLength'),
  bound('minItems'),
  bound('minProperties'),
  {
    // removalPolicy Disallow: adding, changing and removing a pattern are all refused.
    name: 'pattern',
    keywords: ['pattern'],
    compare(a, b) {
      if (a.pattern === b.pattern) return [];
      const detail =
        a.pattern === undefined
          ? `pattern ${JSON.stringify(b.pattern)} added`
          : b.pattern === undefined
            ? `pattern ${JSON.stringify(a.pattern)} removed`
            : `pattern changed ${JSON.stringify(a.pattern)} → ${JSON.stringify(b.pattern)}`;
      return [{ rule: 'pattern-changed', check: 'pattern', detail }];
    },
  },
  {
    name: 'nullable',
    keywords: ['nullable'],
    compare: (a, b) =>
      a.nullable === b.nullable
        ? []
        : [
            {
              rule: 'nullable-changed',
              check: 'nullable',
              detail: b.nullable ? 'nullable added' : 'nullable removed',
            },
          ],
  },
  {
    // Both policies Disallow: a new oneOf, and any branch added or removed, are refused.
    name: 'oneOf',
    keywords: ['oneOf'],
    compare(a, b) {
      const older = new Set((a.oneOf ?? []).map(branchText));
      const newer = new Set((b.oneOf ?? []).map(branchText));
      const change = (detail: string): Change[] => [{ rule: 'one-of-changed', check: 'oneOf', detail }];
      if (older.size === 0 && newer.size > 0) return change('oneOf constraint added');
      const removed = [...older].filter((v) => !newer.has(v)).length;
      if (removed > 0)
        return change(`${removed} oneOf ${removed === 1 ? 'branch' : 'branches'} removed or changed`);
      const added = [...newer].filter((v) => !older.has(v)).length;
      if (added > 0) return change(`${added} oneOf ${added === 1 ? 'branch' : 'branches'} added`);
      return [];
    },
  },
];

const HANDLED = new Set<string>(CHECKS.flatMap((c) => c.keywords));

/**
 * Keywords no crdify validation handles whose tightening we name as such; OLM v1 refuses every change of them
 * (loosening too) as unhandled.
 */
function tightens(keyword: string, a: Schema, b: Schema): string | undefined {
  switch (keyword) {
    case 'exclusiveMaximum':
    case 'exclusiveMinimum':
    case 'uniqueItems':
      return b[keyword] && !a[keyword] ? `${keyword} added` : undefined;
    case 'multipleOf': {
      const older = a.multipleOf;
      const newer = b.multipleOf;
      if (newer === undefined) return undefined;
      if (older === undefined) return `multipleOf ${newer} added`;
      // Every multiple of the old divisor stays valid only when the new divisor divides it.
      return older % newer === 0 ? undefined : `multipleOf changed ${older} → ${newer}`;
    }
    default:
      return undefined;
  }
}

/**
 * What OLM v1's preflight refuses between two versions of one schema node (each without `properties` and
 * `items`): one change per crdify validation that fails, then every other differing keyword as unhandled.
 */
export function compareNode(a: Schema, b: Schema): PropertyChange[] {
  if (sameValue(a, b)) return [];
  const changes: PropertyChange[] = CHECKS.flatMap((check) => {
    const found = check.compare(a, b);
    if (found.length === 0) return [];
    const key = `${check.name}:${canonicalValue(pick(a, check.keywords))}→${canonicalValue(pick(b, check.keywords))}`;
    return found.map((change) => ({ ...change, key }));
  });
  const keywords = [...new Set([...Object.keys(a), ...Object.keys(b)] as SchemaKeyword[])]
    .filter((keyword) => !HANDLED.has(keyword))
    .sort(byteOrder);
  const key = () => `unhandled:${canonicalValue(pick(a, keywords))}→${canonicalValue(pick(b, keywords))}`;
  const unhandled: string[] = [];
  for (const keyword of keywords) {
    if (sameValue(a[keyword], b[keyword])) continue;
    const tightening = tightens(keyword, a, b);
    if (tightening !== undefined) {
      changes.push({ rule: 'bounds-tightened', check: 'unhandled', detail: tightening, key: key() });
    } else unhandled.push(keyword);
  }
  if (unhandled.length > 0) {
    changes.push({
      rule: 'unhandled-change',
      check: 'unhandled',
      detail: `${unhandled.join(', ')} changed, which OLM v1 does not classify and so refuses`,
      key: key(),
    });
  }
  return changes;
}

function pick(node: Schema, keywords: readonly SchemaKeyword[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const keyword of keywords) if (node[keyword] !== undefined) out[keyword] = node[keyword];
  return out;
}
