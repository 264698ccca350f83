// The mark `opkit deploy` puts on every object it applies, and what `opkit undeploy` may therefore delete:
// only objects that carry it for the same operator, and a CRD with objects only when told to.

/** Labels every object deploy applies; the value is the deploy's run id. */
export const DEPLOY_LABEL = 'opkit.dev/deploy';
/**
 * Names the operator, the run and the object: `{"operator":…,"run":…,"kind":…,"name":…,"namespace":…}`.
 * Only label and annotation together, agreeing with the object they are on, prove deploy applied it.
 */
export const DEPLOY_RUN_ANNOTATION = 'opkit.dev/deploy-run';

/** An object as kustomize renders it or the cluster returns it; only its identity and marks are read. */
export interface DeployObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
}

export function describeObject(o: DeployObject): string {
  const ns = o.metadata?.namespace;
  return `${o.kind} ${ns ? `${ns}/` : ''}${o.metadata?.name ?? ''}`;
}

/** The object with deploy's label and annotation for `operator` (its field manager) and `run` added. */
export function markDeployed<T extends DeployObject>(object: T, operator: string, run: string): T {
  const metadata = object.metadata ?? {};
  return {
    ...object,
    metadata: {
      ...metadata,
      labels: { ...metadata.labels, [DEPLOY_LABEL]: run },
      annotations: {
        ...metadata.annotations,
        [DEPLOY_RUN_ANNOTATION]: JSON.stringify({
          operator,
          run,
          kind: object.kind,
          name: metadata.name,
          ...(metadata.namespace === undefined ? {} : { namespace: metadata.namespace }),
        }),
      },
    },
  };
}

/** Whether `deploy` of `operator` applied this object, as the cluster holds it. */
export function deployedBy(live: DeployObject, operator: string): boolean {
  const run = live.metadata?.labels?.[DEPLOY_LABEL];
  const annotation = live.metadata?.annotations?.[DEPLOY_RUN_ANNOTATION];
  if (!run || annotation === undefined) return false;
  let mark: Partial<Record<'operator' | 'run' | 'kind' | 'name' | 'namespace', unknown>> | null;
  try {
    mark = JSON.parse(annotation) as typeof mark;
  } catch {
    return false;
  }
  return (
    mark?.operator === operator &&
    mark.run === run &&
    mark.kind === live.kind &&
    mark.name === live.metadata?.name &&
    // Applied without a namespace, a namespaced object lands in the context's.
    (mark.namespace === undefined || mark.namespace === live.metadata?.namespace)
  );
}

/** The API group, kind, namespace (when given) and name: what makes a rendered object and a live one the same. */
function sameObject(rendered: DeployObject, live: DeployObject): boolean {
  const group = (o: DeployObject) => (o.apiVersion.includes('/') ? o.apiVersion.split('/')[0] : '');
  const namespace = rendered.metadata?.namespace;
  return (
    group(rendered) === group(live) &&
    rendered.kind === live.kind &&
    rendered.metadata?.name === live.metadata?.name &&
    // Rendered without a namespace, a namespaced object is the one in the context's namespace.
    (namespace === undefined || namespace === live.metadata?.namespace)
  );
}

/** What deploy applies: every object marked, but those it found and did not make as they were, and why. */
export interface DeployPlan<T extends DeployObject> {
  readonly apply: readonly T[];
  readonly found: readonly { readonly object: string; readonly reason: string }[];
}

/**
 * Marks the rendered objects for `operator` and `run`, except one the cluster already holds without this
 * operator's mark (a namespace or CRD made beforehand, say): that one is applied unmarked, so that undeploy,
 * which deletes only what carries the mark, leaves it and whatever it holds.
 */
export function planDeploy<T extends DeployObject>(
  rendered: readonly T[],
  live: readonly DeployObject[],
  operator: string,
  run: string,
): DeployPlan<T> {
  const found: { object: string; reason: string }[] = [];
  const apply = rendered.map((object) => {
    const existing = live.find((l) => sameObject(object, l));
    if (existing === undefined || deployedBy(existing, operator)) return markDeployed(object, operator, run);
    found.push({
      object: describeObject(existing),
      reason: `existed before, not applied by opkit deploy of ${operator}: updated without its ${DEPLOY_LABEL} mark, so undeploy leaves it`,
    });
    return object;
  });
  return { apply, found };
}

/** What undeploy does: custom resources to delete first, the objects to delete, and what it leaves and why. */
export interface UndeployPlan {
  /** `<plural>.<group>` of each CRD whose objects go first, while the manager still runs to finalize them. */
  readonly emptyFirst: readonly { readonly resource: string; readonly objects: number }[];
  readonly delete: readonly DeployObject[];
  readonly left: readonly { readonly object: string; readonly reason: string }[];
}

/**
 * Of the rendered objects, the live ones `deploy` of `operator` applied are deleted, the others left. A CRD
 * whose kind still has objects (`objects` by CRD name) is kept with them unless `deleteCrds`.
 */
export function planUndeploy(
  live: readonly DeployObject[],
  objects: ReadonlyMap<string, number>,
  operator: string,
  deleteCrds: boolean,
): UndeployPlan {
  const emptyFirst: { resource: string; objects: number }[] = [];
  const remove: DeployObject[] = [];
  const left: { object: string; reason: string }[] = [];
  for (const o of live) {
    if (!deployedBy(o, operator)) {
      left.push({
        object: describeObject(o),
        reason: `not applied by opkit deploy of ${operator} (no ${DEPLOY_LABEL} label and run annotation of it)`,
      });
      continue;
    }
    const name = o.metadata?.name ?? '';
    const count = o.kind === 'CustomResourceDefinition' ? (objects.get(name) ?? 0) : 0;
    if (count > 0 && !deleteCrds) {
      left.push({
        object: describeObject(o),
        reason: `${count} object${count === 1 ? '' : 's'} of it still exist (--delete-crds deletes them with it)`,
      });
      continue;
    }
    if (count > 0) emptyFirst.push({ resource: name, objects: count });
    remove.push(o);
  }
  return { emptyFirst, delete: remove, left };
}
