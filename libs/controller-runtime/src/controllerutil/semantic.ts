import { quantitiesEqual } from './quantity.js';

/** Fields whose values map resource names to quantities (ResourceRequirements, Node, PV, ResourceQuota, Pod). */
const RESOURCE_LISTS = new Set(['limits', 'requests', 'capacity', 'allocatable', 'hard', 'used', 'overhead']);
/** Fields that hold a single quantity. */
const QUANTITIES = new Set(['sizeLimit']);

/**
 * True when every field of `desired` is present in `actual` with an equal value; fields only `actual` has
 * (server defaults, other managers' fields, status) are ignored. Lists compare position by position, each
 * element by the same rule. Resource quantities compare by value, as the API server stores them in canonical form
 * (`1024Mi` is `1Gi`). This is how a controller decides whether an apply would change anything, so an
 * unchanged world costs no write.
 */
export function isSubset(desired: unknown, actual: unknown): boolean {
  return subset(desired, actual, 'field');
}

/** What the value being compared is: any field, a map of quantities, or a quantity. */
type Kind = 'field' | 'resource-list' | 'quantity';

function subset(desired: unknown, actual: unknown, kind: Kind): boolean {
  if (desired === undefined) return true;
  if (
    kind === 'quantity' &&
    (typeof desired === 'string' || typeof desired === 'number') &&
    (typeof actual === 'string' || typeof actual === 'number')
  ) {
    return quantitiesEqual(desired, actual);
  }
  if (desired === null || typeof desired !== 'object') return desired === actual;
  // Loops rather than every()/entries(): this runs for every field an operator sets, on every reconcile.
  if (Array.isArray(desired)) {
    if (!Array.isArray(actual) || actual.length !== desired.length) return false;
    for (let i = 0; i < desired.length; i++) if (!subset(desired[i], actual[i], 'field')) return false;
    return true;
  }
  const keys = Object.keys(desired);
  // The API server omits empty maps (`requests: {}`): stored, they are the same as none.
  if (actual === undefined && kind === 'resource-list' && keys.length === 0) return true;
  if (!actual || typeof actual !== 'object' || Array.isArray(actual)) return false;
  const wanted = desired as Record<string, unknown>;
  const fields = actual as Record<string, unknown>;
  for (const k of keys) if (!subset(wanted[k], fields[k], childKind(kind, k))) return false;
  return true;
}

function childKind(parent: Kind, key: string): Kind {
  if (parent === 'resource-list') return 'quantity';
  if (RESOURCE_LISTS.has(key)) return 'resource-list';
  return QUANTITIES.has(key) ? 'quantity' : 'field';
}
