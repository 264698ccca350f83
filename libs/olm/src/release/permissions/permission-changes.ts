import { bundlesWithoutManifests, type CatalogEdge, type EdgeBundle } from '../edges.js';
import type { Finding, FindingSeverity } from '../findings.js';
import {
  type AggregatingRole,
  aggregatingRoles,
  bundleGrants,
  type ExternalRoleGrant,
  type HolderGrants,
  holderText,
} from './bundle-grants.js';
import { isEscalation } from './escalation.js';
import {
  atomKey,
  covers,
  coversIgnoringScope,
  type PermissionAtom,
  resourceCovers,
  resourceText,
  urlCovers,
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
 * new rule) and every right it no longer grants, per service account, user or group (or unbound
 * Role/ClusterRole), one finding per holder, scope, resource and name with its verbs. A binding to a role the
 * bundle does not ship, and a shipped ClusterRole that aggregates rules or into the built-in roles, grant rights
 * no rule here spells out: each new one is a finding of its own, never skipped.
 */
export function permissionChangesOfEdge(edge: CatalogEdge): Finding[] {
  const label = `${edge.package} ${bundleLabel(edge.from)} → ${bundleLabel(edge.to)}`;
  const fromObjects = edge.from.objects();
  const toObjects = edge.to.objects();
  if (fromObjects === undefined || toObjects === undefined) {
    const missing = bundlesWithoutManifests(edge);
    return [
      {
        rule: 'permission/not-checked',
        severity: 'info',
        package: edge.package,
        edge: { from: edge.from.name, to: edge.to.name },
        subject: missing.names.join(', '),
        message: `${label}: not checked: ${missing.phrase}`,
      },
    ];
  }
  const before = byHolder(bundleGrants(fromObjects));
  const after = byHolder(bundleGrants(toObjects));
  const findings = new FindingGroups(edge, label);
  for (const [key, grants] of after) {
    const heldRoles = before.get(key)?.externalRoles ?? [];
    for (const role of grants.externalRoles) {
      if (!heldRoles.some((h) => roleCovers(h, role)))
        findings.addExternalRole(holderText(grants.holder), role, 'gains');
    }
  }
  for (const [key, grants] of before) {
    const keptRoles = after.get(key)?.externalRoles ?? [];
    for (const role of grants.externalRoles) {
      if (!keptRoles.some((k) => roleCovers(k, role)))
        findings.addExternalRole(holderText(grants.holder), role, 'loses');
    }
  }
  const aggregatingBefore = aggregatingRoles(fromObjects);
  for (const role of aggregatingRoles(toObjects)) {
    if (!aggregatingBefore.some((b) => sameAggregation(b, role))) findings.addAggregation(role);
  }
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

/** Whether a held grant of an external role takes in `role`: the same role, as wide a scope. */
function roleCovers(held: ExternalRoleGrant, role: ExternalRoleGrant): boolean {
  return (
    held.kind === role.kind &&
    held.name === role.name &&
    (held.scope === 'cluster' || role.scope === 'namespace')
  );
}

function sameAggregation(a: AggregatingRole, b: AggregatingRole): boolean {
  return (
    a.name === b.name &&
    a.aggregation.kind === b.aggregation.kind &&
    (a.aggregation.kind !== 'aggregate-to' ||
      (b.aggregation.kind === 'aggregate-to' && a.aggregation.role === b.aggregation.role))
  );
}

/**
 * The built-in ClusterRole `view` reads most objects and never secrets: a grant of it is a new rule, not an
 * escalation. Every other role the bundle does not ship (cluster-admin, admin, edit, any other) may grant
 * anything, so its grant is an escalation.
 */
function judgeExternalRole(role: ExternalRoleGrant): PermissionRule {
  return role.kind === 'ClusterRole' && role.name === 'view' ? 'rule-added' : 'escalation';
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
    return urlCovers(atom.nonResourceURL, held.nonResourceURL);
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

  /** Findings that are not about a rule's rights: roles the bundle does not ship, aggregating ClusterRoles. */
  private readonly others: Finding[] = [];

  constructor(
    private readonly edge: CatalogEdge,
    private readonly label: string,
  ) {}

  addExternalRole(holder: string, role: ExternalRoleGrant, change: 'gains' | 'loses'): void {
    const rule = change === 'loses' ? 'removed' : judgeExternalRole(role);
    const scope = role.scope === 'cluster' ? 'cluster-wide' : 'namespaced';
    this.other(
      rule,
      `${holder}: ${scope} ${role.kind}/${role.name}`,
      `${holder} ${change} whatever ${role.kind}/${role.name} grants (a role the bundle does not ship)`,
    );
  }

  addAggregation(role: AggregatingRole): void {
    const holder = `ClusterRole ${role.name}`;
    if (role.aggregation.kind === 'aggregation-rule') {
      this.other(
        'escalation',
        `${holder}: aggregationRule`,
        `${holder} gains the rules of every ClusterRole its aggregationRule selects (filled in on the cluster)`,
      );
    } else {
      const label = `rbac.authorization.k8s.io/aggregate-to-${role.aggregation.role}`;
      this.other(
        'escalation',
        `${holder}: ${label}`,
        `${holder} widens the built-in ClusterRole ${role.aggregation.role} for everyone bound to it (label ${label})`,
      );
    }
  }

  private other(rule: PermissionRule, subject: string, message: string): void {
    // Two bindings of one role to one holder (or in both scopes) say one thing.
    if (this.others.some((f) => f.rule === `permission/${rule}` && f.message === `${this.label}: ${message}`))
      return;
    this.others.push({
      rule: `permission/${rule}`,
      severity: SEVERITY[rule],
      package: this.edge.package,
      edge: { from: this.edge.from.name, to: this.edge.to.name },
      subject,
      message: `${this.label}: ${message}`,
    });
  }

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
    const rights = [...this.groups.values()].map(({ rule, holder, atom, verbs, related }) => {
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
    return [...this.others, ...rights];
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
