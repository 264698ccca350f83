/**
 * True when every field of `desired` is present in `actual` with an equal value; fields only `actual` has
 * (server defaults, other managers' fields, status) are ignored. Lists compare position by position, each
 * element by the same rule. This is how a controller decides whether an apply would change anything, so an
 * unchanged world costs no write.
 */
export function isSubset(desired: unknown, actual: unknown): boolean {
  if (desired === undefined) return true;
  if (desired === null || typeof desired !== 'object') return desired === actual;
  if (Array.isArray(desired)) {
    return (
      Array.isArray(actual) &&
      actual.length === desired.length &&
      desired.every((d, i) => isSubset(d, actual[i]))
    );
  }
  if (!actual || typeof actual !== 'object' || Array.isArray(actual)) return false;
  return Object.entries(desired).every(([k, v]) => isSubset(v, (actual as Record<string, unknown>)[k]));
}
