import { parseLabelSelector } from '../internal/cache/label-selector.js';
import type { KubeObject } from '../object.js';

/** Filters events before they reach the queue. A missing method means "let it through". */
export interface Predicate<T extends KubeObject = KubeObject> {
  create?(obj: T): boolean;
  update?(oldObj: T, newObj: T): boolean;
  delete?(obj: T): boolean;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? {}) === JSON.stringify(b ?? {});

/**
 * Passes updates only when `metadata.generation` changed, i.e. the spec changed. Status-only writes are
 * filtered out, so a controller does not react to its own status updates.
 */
export const generationChanged: Predicate = {
  update: (o, n) => o.metadata.generation !== n.metadata.generation,
};

export const resourceVersionChanged: Predicate = {
  update: (o, n) => o.metadata.resourceVersion !== n.metadata.resourceVersion,
};

export const labelsChanged: Predicate = { update: (o, n) => !same(o.metadata.labels, n.metadata.labels) };

export const annotationsChanged: Predicate = {
  update: (o, n) => !same(o.metadata.annotations, n.metadata.annotations),
};

/** Only objects whose labels match the selector. */
export function labelSelectorPredicate(selector: string): Predicate {
  const s = parseLabelSelector(selector);
  const ok = (obj: KubeObject) => s.matches(obj.metadata.labels);
  return { create: ok, update: (_o, n) => ok(n), delete: ok };
}

/** A predicate from one function applied to every event's (new) object. */
export function predicateFor<T extends KubeObject>(fn: (obj: T) => boolean): Predicate<T> {
  return { create: fn, update: (_o, n) => fn(n), delete: fn };
}

type Kind = 'create' | 'update' | 'delete';
function evaluate<T extends KubeObject>(p: Predicate<T>, kind: Kind, a: T, b?: T): boolean {
  if (kind === 'create') return p.create ? p.create(a) : true;
  if (kind === 'delete') return p.delete ? p.delete(a) : true;
  return p.update ? p.update(a, b!) : true;
}

export function and<T extends KubeObject>(...ps: Predicate<T>[]): Predicate<T> {
  return {
    create: (o) => ps.every((p) => evaluate(p, 'create', o)),
    update: (o, n) => ps.every((p) => evaluate(p, 'update', o, n)),
    delete: (o) => ps.every((p) => evaluate(p, 'delete', o)),
  };
}

export function or<T extends KubeObject>(...ps: Predicate<T>[]): Predicate<T> {
  return {
    create: (o) => ps.some((p) => evaluate(p, 'create', o)),
    update: (o, n) => ps.some((p) => evaluate(p, 'update', o, n)),
    delete: (o) => ps.some((p) => evaluate(p, 'delete', o)),
  };
}

export function not<T extends KubeObject>(p: Predicate<T>): Predicate<T> {
  return {
    create: (o) => !evaluate(p, 'create', o),
    update: (o, n) => !evaluate(p, 'update', o, n),
    delete: (o) => !evaluate(p, 'delete', o),
  };
}

export function passes<T extends KubeObject>(ps: readonly Predicate<T>[], kind: Kind, a: T, b?: T): boolean {
  return ps.every((p) => evaluate(p, kind, a, b));
}
