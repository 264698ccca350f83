import { findStatusCondition } from '../conditions/conditions.js';
import type { EventType } from '../events/recorder.js';
import type { Condition, Kind, KubeObject } from '../object.js';
import { droppedAppliedFields } from './applied-fields.js';
import { isSubset } from './semantic.js';

/** What a write did, as controller-runtime's `controllerutil.OperationResult` reports it. */
export type OperationResult = 'created' | 'updated' | 'unchanged';

/**
 * `controllerutil.CreateOrPatch` for server-side apply: applies `desired` when `live` (as read from the cache)
 * lacks any of its fields or values, or still has a field the client applied before and `desired` no longer
 * sets (the apply removes it), and says what happened. An unchanged world costs no write.
 */
export async function applyIfChanged(
  client: { apply(obj: KubeObject): Promise<unknown>; readonly fieldManager?: string },
  desired: KubeObject,
  live: KubeObject | undefined,
): Promise<OperationResult> {
  if (
    live &&
    isSubset(desired, live) &&
    (client.fieldManager === undefined ||
      droppedAppliedFields(live, desired, client.fieldManager).length === 0)
  ) {
    return 'unchanged';
  }
  await client.apply(desired);
  return live ? 'updated' : 'created';
}

/**
 * Patches the status subresource with `next` unless the object's status already says all of it (and holds
 * no condition `next`'s list leaves out; without a list, the conditions are left alone); returns whether it
 * wrote. A reconciler that computes its whole status each time
 * can call it unconditionally and stays quiet once converged.
 */
export async function patchStatusIfChanged<S extends { readonly conditions?: readonly unknown[] }>(
  client: {
    patch(
      target: Kind & { name: string; namespace?: string },
      patch: unknown,
      type: 'merge',
      options: { subresource: 'status' },
    ): Promise<unknown>;
  },
  type: Kind,
  obj: KubeObject & { readonly status?: S },
  next: S,
): Promise<boolean> {
  const current = obj.status ?? ({} as S);
  // A merge patch replaces the conditions list only when it has one: a status that says nothing of
  // conditions leaves them as they are, so only a list that leaves one out drops it.
  const dropsNone = next.conditions === undefined || isSubset(current.conditions ?? [], next.conditions);
  if (isSubset(next, current) && dropsNone) return false;
  const { name, namespace } = obj.metadata;
  if (!name) throw new Error(`patchStatusIfChanged: the ${type.kind} has no name`);
  await client.patch({ ...type, name, namespace }, { status: next }, 'merge', { subresource: 'status' });
  return true;
}

/**
 * Which event announces a condition whose status or reason changed, from the condition as it was (undefined
 * when it is new): `Normal`, `Warning`, or undefined for none. A reason that changes under the same status can
 * be news (a rollout that was only waiting has now lost a server); a policy that reports only changes of
 * status returns undefined when `previous?.status === condition.status`.
 */
export type ConditionEventType = (
  previous: Condition | undefined,
  condition: Condition,
) => EventType | undefined;

/**
 * {@link patchStatusIfChanged}, then, when it wrote, an event about `obj` for each condition of `next` whose
 * status or reason differs from the one `obj` had or that `obj` did not have: of the type `eventType` gives, with the
 * condition's reason, `<type>=<status>` as its action and the condition's message as its note. Returns
 * whether it wrote.
 */
export async function patchStatusWithConditionEvents<
  S extends { readonly conditions?: readonly Condition[] },
>(
  client: Parameters<typeof patchStatusIfChanged>[0],
  events: {
    event(regarding: KubeObject, type: EventType, reason: string, action: string, note: string): void;
  },
  type: Kind,
  obj: KubeObject & { readonly status?: S },
  next: S,
  eventType: ConditionEventType,
): Promise<boolean> {
  const before = obj.status?.conditions;
  if (!(await patchStatusIfChanged(client, type, obj, next))) return false;
  for (const condition of next.conditions ?? []) {
    const previous = findStatusCondition(before, condition.type);
    if (previous?.status === condition.status && previous.reason === condition.reason) continue;
    const kind = eventType(previous, condition);
    if (kind !== undefined)
      events.event(obj, kind, condition.reason, `${condition.type}=${condition.status}`, condition.message);
  }
  return true;
}
