import type { CatalogEdge, EdgeBundle } from '../edges.js';
import type { Finding, FindingSeverity } from '../findings.js';
import { bundleGrants, type HolderGrants, holderText } from './bundle-grants.js';
import { isEscalation } from './escalation.js';
import {
  atomKey,
  covers,
  coversIgnoringScope,
  type PermissionAtom,
  resourceCovers,
  resourceText,
  valueCovers,
} from './rbac-atoms.js';

/** The rules of the permission family, by how a gained or lost right is judged. */
export type PermissionRule =
  | 'escalation'
  | 'cluster-scope'
  | 'widened'
  | 'rule-added'
  | 'removed'
  | 'not-checked';

const SEVERITY: Readonly<Record<PermissionRule, FindingSeverity>> = {
  escalation: 'error',
  'cluster-scope': 'error',
  widened: 'warning',
  'rule-added': 'info',
  removed: 'info',
  'not-checked': 'info',
};

/**
 * What an upgrade along `edge` changes in the rights the operator holds: every right the `to` bundle grants
 * that the `from` bundle did not (an escalation, a namespaced right made cluster-wide, a widened right or a
 * new rule) and every right it no longer grants, per service account (or unbound Role/ClusterRole), one
 * finding per holder, scope, resource and name with its verbs.
 */
export function permissionChangesOfEdge(edge: CatalogEdge): Finding[] {
  const label = `${edge.package} ${bundleLabel(edge.from)} → ${bundleLabel(edge.to)}`;
  const fromObjects = edge.from.objects();
  const toObjects = edge.to.objects();
  if (fromObjects === undefined || toObjects === undefined) {
    const missing = [
      fromObjects === undefined ? edge.from.name : undefined,
      toObjects === undefined ? edge.to.name : undefined,
    ].filter((n): n is string => n !== undefined);
    return [
      {
        rule: 'permission/not-checked',
        severity: 'info',
        package: edge.package,
        edge: { from: edge.from.name, to: edge.to.name },
        subject: missing.join(', '),
        message: `${label}: not checked: ${missing.join(' and ')} ${missing.length === 1 ? 'carries' : 'carry'} no manifests`,
      },
    ];
  }
  const before = byHolder(bundleGrants(fromObjects));
  const after = byHolder(bundleGrants(toObjects));
  const findings = new FindingGroups(edge, label);
  for (const [key, grants] of after) {
    const held = before.get(key)?.atoms ?? [];
    for (const atom of unique(grants.atoms)) {
      if (held.some((h) => covers(h, atom))) continue;
      const rule = judgeGained(atom, held);
      const related = rule === 'widened' ? held.filter((h) => widens(atom, h)) : [];
      findings.add(rule, holderText(grants.holder), atom, related);
    }
  }
  for (const [key, grants] of before) {
    const kept = after.get(key)?.atoms ?? [];
    for (const atom of unique(grants.atoms)) {
      if (!kept.some((k) => covers(k, atom))) findings.add('removed', holderText(grants.holder), atom, []);
    }
  }
  return findings.findings();
}

function judgeGained(atom: PermissionAtom, held: readonly PermissionAtom[]): PermissionRule {
  if (isEscalation(atom)) return 'escalation';
  if (atom.scope === 'cluster' && held.some((h) => h.scope === 'namespace' && coversIgnoringScope(h, atom))) {
    return 'cluster-scope';
  }
  if (held.some((h) => widens(atom, h))) return 'widened';
  return 'rule-added';
}

/** Whether the gained atom reaches what a held one reached: the same or a wider group, resource or URL. */
function widens(atom: PermissionAtom, held: PermissionAtom): boolean {
  if (atom.nonResourceURL !== undefined || held.nonResourceURL !== undefined) {
    if (atom.nonResourceURL === undefined || held.nonResourceURL === undefined) return false;
    const url = atom.nonResourceURL;
    return (
      url === held.nonResourceURL ||
      url === '*' ||
      (url.endsWith('*') && held.nonResourceURL.startsWith(url.slice(0, -1)))
    );
  }
  return (
    valueCovers(atom.apiGroup ?? '', held.apiGroup ?? '') &&
    resourceCovers(atom.resource ?? '', held.resource ?? '')
  );
}

/** Findings of one edge, gathered per rule, holder, scope, resource and name with their verbs. */
class FindingGroups {
  private readonly groups = new Map<
    string,
    {
      rule: PermissionRule;
      holder: string;
      atom: PermissionAtom;
      verbs: Set<string>;
      related: PermissionAtom[];
    }
  >();

  constructor(
    private readonly edge: CatalogEdge,
    private readonly label: string,
  ) {}

  add(rule: PermissionRule, holder: string, atom: PermissionAtom, related: readonly PermissionAtom[]): void {
    const key = [rule, holder, atomKey({ ...atom, verb: '' })].join('\u0001');
    let group = this.groups.get(key);
    if (group === undefined) {
      group = { rule, holder, atom, verbs: new Set(), related: [] };
      this.groups.set(key, group);
    }
    group.verbs.add(atom.verb);
    group.related.push(...related);
  }

  findings(): Finding[] {
    return [...this.groups.values()].map(({ rule, holder, atom, verbs, related }) => {
      const right = `${scopeText(atom)} ${sortVerbs(verbs).join(', ')} on ${objectText(atom)}`;
      const change = rule === 'removed' ? 'loses' : 'gains';
      let message = `${this.label}: ${holder} ${change} ${right}`;
      if (rule === 'cluster-scope') message += ', which it held only namespaced';
      if (rule === 'widened') message += `, widening its ${heldText(related)}`;
      return {
        rule: `permission/${rule}`,
        severity: SEVERITY[rule],
        package: this.edge.package,
        edge: { from: this.edge.from.name, to: this.edge.to.name },
        subject: `${holder}: ${right}`,
        message,
      };
    });
  }
}

function scopeText(atom: PermissionAtom): string {
  return atom.scope === 'cluster' ? 'cluster-wide' : 'namespaced';
}

function objectText(atom: PermissionAtom): string {
  return `${resourceText(atom)}${atom.resourceName === undefined ? '' : ` named ${atom.resourceName}`}`;
}

/** What a holder held that a widened right reaches beyond: `get, list on deployments.apps`. */
function heldText(held: readonly PermissionAtom[]): string {
  const verbs = new Map<string, Set<string>>();
  for (const atom of held) {
    const object = `${scopeText(atom)} ${objectText(atom)}`;
    let set = verbs.get(object);
    if (set === undefined) {
      set = new Set();
      verbs.set(object, set);
    }
    set.add(atom.verb);
  }
  return [...verbs.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([object, set]) => {
      const space = object.indexOf(' ');
      return `${object.slice(0, space)} ${sortVerbs(set).join(', ')} on ${object.slice(space + 1)}`;
    })
    .join('; ');
}

/** Verbs in the order kubectl lists a role's (`get, list, watch, create, …`), unknown ones after, by name. */
function sortVerbs(verbs: Iterable<string>): string[] {
  const order = ['*', 'get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];
  const rank = (v: string): number => (order.includes(v) ? order.indexOf(v) : order.length);
  return [...verbs].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}

function unique(atoms: readonly PermissionAtom[]): PermissionAtom[] {
  return [...new Map(atoms.map((a) => [atomKey(a), a])).values()];
}

function byHolder(grants: readonly HolderGrants[]): Map<string, HolderGrants> {
  return new Map(grants.map((g) => [`${g.holder.kind}/${g.holder.name}`, g]));
}

function bundleLabel(bundle: EdgeBundle): string {
  return bundle.version ?? bundle.name;
}
