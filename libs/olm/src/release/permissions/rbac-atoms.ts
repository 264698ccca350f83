/** Where a grant holds: in the operator's namespace(s) (a Role) or across the cluster (a ClusterRole). */
export type PermissionScope = 'namespace' | 'cluster';

/**
 * One right: one verb on one resource (with its subresource, `pods/exec`) of one API group, or on one
 * non-resource URL, in one scope, optionally limited to one named object. Every field is the rule's own
 * spelling, `*` included: nothing is expanded that RBAC does not spell out.
 */
export interface PermissionAtom {
  readonly scope: PermissionScope;
  readonly verb: string;
  /** `undefined` for a non-resource URL. */
  readonly apiGroup?: string;
  readonly resource?: string;
  /** The one object the right is limited to; `undefined`: every object. */
  readonly resourceName?: string;
  readonly nonResourceURL?: string;
}

/** A PolicyRule as the CSV and RBAC objects spell it. */
export interface PolicyRule {
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly verbs?: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
}

/** The rights `rules` grant in `scope`, one atom per verb × group × resource × name (or verb × URL). */
export function atomsOfRules(rules: readonly PolicyRule[], scope: PermissionScope): PermissionAtom[] {
  const atoms: PermissionAtom[] = [];
  for (const rule of rules) {
    const verbs = strings(rule.verbs);
    for (const url of strings(rule.nonResourceURLs)) {
      // Non-resource URLs are only ever granted cluster-wide: a Role's are ignored by the API server.
      if (scope === 'cluster') for (const verb of verbs) atoms.push({ scope, verb, nonResourceURL: url });
    }
    const names: (string | undefined)[] = strings(rule.resourceNames);
    if (names.length === 0) names.push(undefined);
    for (const apiGroup of strings(rule.apiGroups)) {
      for (const resource of strings(rule.resources)) {
        for (const verb of verbs) {
          for (const resourceName of names) {
            atoms.push({
              scope,
              verb,
              apiGroup,
              resource,
              ...(resourceName === undefined ? {} : { resourceName }),
            });
          }
        }
      }
    }
  }
  return atoms;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** A key that is equal for equal atoms, for sets of atoms. */
export function atomKey(atom: PermissionAtom): string {
  return [
    atom.scope,
    atom.verb,
    atom.apiGroup ?? '',
    atom.resource ?? '',
    atom.resourceName ?? '',
    atom.nonResourceURL ?? '',
  ].join('\u0000');
}

/** Whether a rule's resource (`*`, `pods`, `pods/log`, `*\/scale`) covers `resource`, as RBAC matches them. */
export function resourceCovers(ruleResource: string, resource: string): boolean {
  if (ruleResource === '*' || ruleResource === resource) return true;
  const slash = resource.indexOf('/');
  if (ruleResource.startsWith('*/')) {
    return slash >= 0 && ruleResource.slice(2) === resource.slice(slash + 1);
  }
  return false;
}

/** Whether a rule's value covers a value: equal, or the rule's is `*`. */
export function valueCovers(ruleValue: string, value: string): boolean {
  return ruleValue === '*' || ruleValue === value;
}

/**
 * Whether a non-resource URL rule (`/metrics`, `/healthz/*`, `*`) covers `url`, as RBAC matches them: a rule
 * ending in `*` is a prefix once every trailing `*` is trimmed (`/healthz**` covers `/healthz/ready`).
 */
export function urlCovers(ruleUrl: string, url: string): boolean {
  if (ruleUrl === url) return true;
  return ruleUrl.endsWith('*') && url.startsWith(ruleUrl.replace(/\*+$/, ''));
}

/**
 * Whether `held` grants everything `atom` grants, scope aside: the same or a wider verb, group, resource (with
 * RBAC's wildcards) and name; `*` covers everything and nothing but `*` covers `*`.
 */
export function coversIgnoringScope(held: PermissionAtom, atom: PermissionAtom): boolean {
  if (!valueCovers(held.verb, atom.verb)) return false;
  if (held.nonResourceURL !== undefined || atom.nonResourceURL !== undefined) {
    return (
      held.nonResourceURL !== undefined &&
      atom.nonResourceURL !== undefined &&
      urlCovers(held.nonResourceURL, atom.nonResourceURL)
    );
  }
  if (!valueCovers(held.apiGroup ?? '', atom.apiGroup ?? '')) return false;
  if (!resourceCovers(held.resource ?? '', atom.resource ?? '')) return false;
  return held.resourceName === undefined || held.resourceName === atom.resourceName;
}

/** Whether `held` grants everything `atom` grants; a cluster-wide grant covers a namespaced one. */
export function covers(held: PermissionAtom, atom: PermissionAtom): boolean {
  if (held.scope === 'namespace' && atom.scope === 'cluster') return false;
  return coversIgnoringScope(held, atom);
}

/** The resource as kubectl names it: `secrets`, `deployments.apps`, `customresourcedefinitions.apiextensions.k8s.io/status`. */
export function resourceText(atom: PermissionAtom): string {
  if (atom.nonResourceURL !== undefined) return `non-resource URL ${atom.nonResourceURL}`;
  const resource = atom.resource ?? '';
  const group = atom.apiGroup ?? '';
  if (group === '') return resource;
  const slash = resource.indexOf('/');
  const name = slash < 0 ? resource : resource.slice(0, slash);
  const sub = slash < 0 ? '' : resource.slice(slash);
  return `${name}.${group}${sub}`;
}
