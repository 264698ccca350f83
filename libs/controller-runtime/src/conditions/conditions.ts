import type { Condition } from '../object.js';

/** The condition `setStatusCondition` takes: `lastTransitionTime` is filled in when missing. */
export type ConditionUpdate = Omit<Condition, 'lastTransitionTime'> & { lastTransitionTime?: string };

/** The outcome of a condition update: the new list (never the one passed in) and whether anything differs. */
export interface ConditionsResult {
  conditions: Condition[];
  changed: boolean;
}

/** Now as `metav1.Time` serialises it: RFC 3339 in UTC with second precision. */
function defaultNow(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, 'Z');
}

function withoutUndefined(condition: Condition): Condition {
  const { observedGeneration, ...rest } = condition;
  return observedGeneration === undefined ? rest : { ...rest, observedGeneration };
}

/**
 * Sets a condition with apimachinery `meta.SetStatusCondition` semantics, without mutating `conditions`.
 *
 * - A type not present yet is appended, with `lastTransitionTime` = `next.lastTransitionTime` or `now()`.
 * - For a type already present, `lastTransitionTime` changes only when `status` changes (to
 *   `next.lastTransitionTime` if given, else `now()`); `reason`, `message` and `observedGeneration` are always
 *   overwritten (an absent `observedGeneration` removes it).
 *
 * @param conditions - the current conditions (`status.conditions`, possibly undefined).
 * @param next - the condition to set.
 * @param now - the clock; defaults to the current time with second precision.
 * @returns a new array, and `changed` when it differs from `conditions`.
 */
export function setStatusCondition(
  conditions: readonly Condition[] | undefined,
  next: ConditionUpdate,
  now: () => string = defaultNow,
): ConditionsResult {
  const current = conditions ?? [];
  const index = current.findIndex((c) => c.type === next.type);
  if (index < 0) {
    const added = withoutUndefined({
      type: next.type,
      status: next.status,
      reason: next.reason,
      message: next.message,
      lastTransitionTime: next.lastTransitionTime || now(),
      observedGeneration: next.observedGeneration,
    });
    return { conditions: [...current, added], changed: true };
  }

  const existing = current[index]!;
  const statusChanged = existing.status !== next.status;
  const updated = withoutUndefined({
    type: existing.type,
    status: next.status,
    reason: next.reason,
    message: next.message,
    lastTransitionTime: statusChanged ? next.lastTransitionTime || now() : existing.lastTransitionTime,
    observedGeneration: next.observedGeneration,
  });
  const changed =
    statusChanged ||
    existing.reason !== next.reason ||
    existing.message !== next.message ||
    existing.observedGeneration !== next.observedGeneration;
  const result = [...current];
  if (changed) result[index] = updated;
  return { conditions: result, changed };
}

/**
 * Sets several conditions at once with {@link setStatusCondition}'s semantics; returns the new list (the
 * object's own is left as it is). `status.conditions = setStatusConditions(cr.status?.conditions, available, degraded)`.
 */
export function setStatusConditions(
  conditions: readonly Condition[] | undefined,
  ...updates: readonly ConditionUpdate[]
): Condition[] {
  let result = [...(conditions ?? [])];
  for (const update of updates) result = setStatusCondition(result, update).conditions;
  return result;
}

/**
 * Removes the condition of type `type` (apimachinery `meta.RemoveStatusCondition`), without mutating
 * `conditions`.
 *
 * @returns a new array, and `changed` when a condition was removed.
 */
export function removeStatusCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): ConditionsResult {
  const current = conditions ?? [];
  const result = current.filter((c) => c.type !== type);
  return { conditions: result, changed: result.length !== current.length };
}

/** The condition of type `type`, or undefined (apimachinery `meta.FindStatusCondition`). */
export function findStatusCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/** Whether the condition of type `type` is present with status `True`. */
export function isStatusConditionTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return isStatusConditionPresentAndEqual(conditions, type, 'True');
}

/** Whether the condition of type `type` is present with status `False`. */
export function isStatusConditionFalse(conditions: readonly Condition[] | undefined, type: string): boolean {
  return isStatusConditionPresentAndEqual(conditions, type, 'False');
}

/** Whether the condition of type `type` is present with status `status`. */
export function isStatusConditionPresentAndEqual(
  conditions: readonly Condition[] | undefined,
  type: string,
  status: Condition['status'],
): boolean {
  return findStatusCondition(conditions, type)?.status === status;
}
