import { describe, expect, it } from 'vitest';
import type { CatalogEdge, EdgeBundle } from '../edges.js';
import { permissionChangesOfEdge } from './permission-changes.js';
import type { PolicyRule } from './rbac-atoms.js';

interface Rights {
  /** The CSV's install modes; without them it supports none. */
  readonly installModes?: readonly { type: string; supported: boolean }[];
  readonly namespaced?: readonly PolicyRule[];
  readonly cluster?: readonly PolicyRule[];
  /** Shipped RBAC objects besides the CSV. */
  readonly objects?: readonly Record<string, unknown>[];
}

const ACCOUNT = 'controller-manager';

function csv(rights: Rights): Record<string, unknown> {
  const entry = (rules: readonly PolicyRule[] | undefined) =>
    rules === undefined ? [] : [{ serviceAccountName: ACCOUNT, rules }];
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: { name: 'memcached-operator.v0.0.0' },
    spec: {
      ...(rights.installModes === undefined ? {} : { installModes: rights.installModes }),
      install: {
        strategy: 'deployment',
        spec: { permissions: entry(rights.namespaced), clusterPermissions: entry(rights.cluster) },
      },
    },
  };
}

function bundle(version: string, rights: Rights | undefined): EdgeBundle {
  const objects = rights === undefined ? undefined : [csv(rights), ...(rights.objects ?? [])];
  return { name: `memcached-operator.v${version}`, version, objects: () => objects };
}

function edge(from: Rights | undefined, to: Rights | undefined): CatalogEdge {
  return {
    package: 'memcached-operator',
    channels: ['alpha'],
    kinds: ['replaces'],
    from: bundle('0.2.0', from),
    to: bundle('0.3.0', to),
  };
}

/** The findings of the edge as `rule: message`, the message without its `package from → to: ` head. */
function changes(from: Rights | undefined, to: Rights | undefined): string[] {
  return permissionChangesOfEdge(edge(from, to)).map(
    (f) => `${f.rule}: ${f.message.replace('memcached-operator 0.2.0 → 0.3.0: ', '')}`,
  );
}

const rule = (apiGroup: string, resource: string, verbs: string[], resourceNames?: string[]): PolicyRule => ({
  apiGroups: [apiGroup],
  resources: [resource],
  verbs,
  ...(resourceNames === undefined ? {} : { resourceNames }),
});

const SA = `service account ${ACCOUNT}`;
const deployments = rule('apps', 'deployments', ['get', 'list', 'watch']);

describe('permission changes on an upgrade edge', () => {
  it('names the package, the edge, the service account and the right in one line', () => {
    const [finding] = permissionChangesOfEdge(edge({}, { cluster: [rule('', 'secrets', ['get'])] }));
    expect(finding).toEqual({
      rule: 'permission/escalation',
      severity: 'error',
      package: 'memcached-operator',
      edge: { from: 'memcached-operator.v0.2.0', to: 'memcached-operator.v0.3.0' },
      subject: `${SA}: cluster-wide get on secrets`,
      message: `memcached-operator 0.2.0 → 0.3.0: ${SA} gains cluster-wide get on secrets`,
    });
  });

  it('finds nothing when the rights stay the same, however the rules are cut and ordered', () => {
    const before = { cluster: [deployments, rule('', 'pods', ['get'])] };
    const after = {
      cluster: [
        rule('', 'pods', ['get']),
        rule('apps', 'deployments', ['watch', 'list']),
        rule('apps', 'deployments', ['get']),
      ],
    };
    expect(changes(before, after)).toEqual([]);
  });

  describe('rule-added (info)', () => {
    it('a right on a resource the account had nothing on', () => {
      expect(
        changes(
          { namespaced: [deployments] },
          { namespaced: [deployments, rule('', 'configmaps', ['get'])] },
        ),
      ).toEqual([`permission/rule-added: ${SA} gains namespaced get on configmaps`]);
    });
    it('not for a right a wider one already held', () => {
      expect(changes({ cluster: [rule('apps', '*', ['*'])] }, { cluster: [deployments] })).toEqual([
        `permission/removed: ${SA} loses cluster-wide * on *.apps`,
      ]);
    });
  });

  describe('widened (warning)', () => {
    it('new verbs on a resource', () => {
      expect(
        changes(
          { cluster: [deployments] },
          { cluster: [rule('apps', 'deployments', ['get', 'list', 'watch', 'update'])] },
        ),
      ).toEqual([
        `permission/widened: ${SA} gains cluster-wide update on deployments.apps, widening its cluster-wide get, list, watch on deployments.apps`,
      ]);
    });
    it('a resource that becomes *', () => {
      expect(changes({ cluster: [deployments] }, { cluster: [rule('apps', '*', ['get'])] })).toEqual([
        `permission/widened: ${SA} gains cluster-wide get on *.apps, widening its cluster-wide get, list, watch on deployments.apps`,
        `permission/removed: ${SA} loses cluster-wide list, watch on deployments.apps`,
      ]);
    });
    it('a group that becomes *', () => {
      expect(
        changes({ cluster: [deployments] }, { cluster: [deployments, rule('*', 'deployments', ['get'])] }),
      ).toEqual([
        `permission/widened: ${SA} gains cluster-wide get on deployments.*, widening its cluster-wide get, list, watch on deployments.apps`,
      ]);
    });
    it('a resourceNames restriction dropped', () => {
      expect(
        changes(
          { namespaced: [rule('', 'configmaps', ['get'], ['settings'])] },
          { namespaced: [rule('', 'configmaps', ['get'])] },
        ),
      ).toEqual([
        `permission/widened: ${SA} gains namespaced get on configmaps, widening its namespaced get on configmaps named settings`,
      ]);
    });
    it('not when verbs are dropped', () => {
      expect(
        changes({ cluster: [deployments] }, { cluster: [rule('apps', 'deployments', ['get'])] }),
      ).toEqual([`permission/removed: ${SA} loses cluster-wide list, watch on deployments.apps`]);
    });
  });

  describe('cluster-scope (error)', () => {
    it('a right held only namespaced that becomes cluster-wide', () => {
      expect(
        changes({ namespaced: [rule('', 'pods', ['get'])] }, { cluster: [rule('', 'pods', ['get'])] }),
      ).toEqual([
        `permission/cluster-scope: ${SA} gains cluster-wide get on pods, which it held only namespaced`,
      ]);
    });
    it('not when it was cluster-wide already, nor when it stays namespaced', () => {
      expect(
        changes(
          { cluster: [rule('', 'pods', ['get'])], namespaced: [rule('', 'services', ['get'])] },
          {
            cluster: [rule('', 'pods', ['get'])],
            namespaced: [rule('', 'pods', ['get']), rule('', 'services', ['get'])],
          },
        ),
      ).toEqual([]);
    });
  });

  describe('escalation (error)', () => {
    const escalations: [string, PolicyRule, string][] = [
      ['reading secrets', rule('', 'secrets', ['list', 'watch']), 'list, watch on secrets'],
      [
        'binding roles',
        rule('rbac.authorization.k8s.io', 'clusterrolebindings', ['create']),
        'create on clusterrolebindings.rbac.authorization.k8s.io',
      ],
      [
        'escalate on roles',
        rule('rbac.authorization.k8s.io', 'roles', ['escalate']),
        'escalate on roles.rbac.authorization.k8s.io',
      ],
      ['impersonation', rule('', 'users', ['impersonate']), 'impersonate on users'],
      [
        'service account tokens',
        rule('', 'serviceaccounts/token', ['create']),
        'create on serviceaccounts/token',
      ],
      ['exec into pods', rule('', 'pods/exec', ['create']), 'create on pods/exec'],
      ['attach to pods', rule('', 'pods/attach', ['get']), 'get on pods/attach'],
      [
        'webhook configurations',
        rule('admissionregistration.k8s.io', 'mutatingwebhookconfigurations', ['patch']),
        'patch on mutatingwebhookconfigurations.admissionregistration.k8s.io',
      ],
      [
        'writing CRDs',
        rule('apiextensions.k8s.io', 'customresourcedefinitions', ['update']),
        'update on customresourcedefinitions.apiextensions.k8s.io',
      ],
      ['the node proxy', rule('', 'nodes/proxy', ['get']), 'get on nodes/proxy'],
      ['creating pods (as any service account)', rule('', 'pods', ['create']), 'create on pods'],
      ['writing nodes', rule('', 'nodes', ['patch']), 'patch on nodes'],
      ['deleting nodes', rule('', 'nodes', ['delete']), 'delete on nodes'],
      [
        'creating persistent volumes',
        rule('', 'persistentvolumes', ['create']),
        'create on persistentvolumes',
      ],
      [
        'approving certificate requests',
        rule('certificates.k8s.io', 'certificatesigningrequests/approval', ['update']),
        'update on certificatesigningrequests.certificates.k8s.io/approval',
      ],
      [
        'approving as a signer',
        rule('certificates.k8s.io', 'signers', ['approve']),
        'approve on signers.certificates.k8s.io',
      ],
      ['* on everything', rule('*', '*', ['*']), '* on *.*'],
      ['every verb on secrets', rule('', 'secrets', ['*']), '* on secrets'],
      ['every core resource read', rule('', '*', ['get']), 'get on *'],
    ];
    it.each(escalations)('%s', (_, granted, right) => {
      expect(changes({}, { cluster: [granted] })).toEqual([
        `permission/escalation: ${SA} gains cluster-wide ${right}`,
      ]);
    });

    it('before widened: a new verb on secrets is an escalation', () => {
      expect(
        changes(
          { namespaced: [rule('', 'secrets', ['create'])] },
          { namespaced: [rule('', 'secrets', ['create', 'get'])] },
        ),
      ).toEqual([`permission/escalation: ${SA} gains namespaced get on secrets`]);
    });

    it('not for rights that reach none of them (creating secrets widens, reading does not), nor for one held before', () => {
      expect(
        changes(
          { namespaced: [rule('', 'secrets', ['get'])] },
          {
            namespaced: [rule('', 'secrets', ['get'])],
            cluster: [
              rule('', 'secrets', ['create']),
              rule('apiextensions.k8s.io', 'customresourcedefinitions', ['get']),
              rule('', 'pods/log', ['get']),
              rule('rbac.authorization.k8s.io', 'roles', ['get']),
              rule('', 'pods', ['get', 'delete']),
              rule('', 'nodes', ['get']),
              rule('certificates.k8s.io', 'certificatesigningrequests', ['create']),
            ],
          },
        ).map((c) => c.slice(0, c.indexOf(':'))),
      ).toEqual([
        'permission/widened',
        'permission/rule-added',
        'permission/rule-added',
        'permission/rule-added',
        'permission/rule-added',
        'permission/rule-added',
        'permission/rule-added',
      ]);
    });
  });

  describe('permissions of a CSV that supports AllNamespaces', () => {
    const allNamespaces = [{ type: 'AllNamespaces', supported: true }];
    it('are cluster-wide: OLM grants them through ClusterRoles for an all-namespaces install', () => {
      expect(
        changes(
          { installModes: allNamespaces, namespaced: [rule('', 'pods', ['get'])] },
          { installModes: allNamespaces, cluster: [rule('', 'pods', ['get'])] },
        ),
      ).toEqual([]);
      expect(
        changes({}, { installModes: allNamespaces, namespaced: [rule('', 'configmaps', ['get'])] }),
      ).toEqual([`permission/rule-added: ${SA} gains cluster-wide get on configmaps`]);
    });
    it('become cluster-wide when a new version starts to support it', () => {
      expect(
        changes(
          {
            installModes: [{ type: 'OwnNamespace', supported: true }],
            namespaced: [rule('', 'pods', ['get'])],
          },
          {
            installModes: [...allNamespaces, { type: 'OwnNamespace', supported: true }],
            namespaced: [rule('', 'pods', ['get'])],
          },
        ),
      ).toEqual([
        `permission/cluster-scope: ${SA} gains cluster-wide get on pods, which it held only namespaced`,
      ]);
    });
  });

  describe('removed (info)', () => {
    it('every right the account no longer holds', () => {
      expect(
        changes({ cluster: [deployments, rule('', 'pods', ['get'])] }, { cluster: [deployments] }),
      ).toEqual([`permission/removed: ${SA} loses cluster-wide get on pods`]);
    });
  });

  describe('RBAC objects the bundle ships', () => {
    const role = (kind: string, name: string, rules: PolicyRule[]) => ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind,
      metadata: { name },
      rules,
    });
    const binding = (kind: string, roleKind: string, role: string) => ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind,
      metadata: { name: `${role}-binding` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name: role },
      subjects: [{ kind: 'ServiceAccount', name: 'metrics', namespace: 'system' }],
    });
    it('a ClusterRoleBinding grants its ClusterRole cluster-wide to the subjects', () => {
      const reader = role('ClusterRole', 'reader', [rule('', 'secrets', ['get'])]);
      expect(
        changes({}, { objects: [reader, binding('ClusterRoleBinding', 'ClusterRole', 'reader')] }),
      ).toEqual(['permission/escalation: service account metrics gains cluster-wide get on secrets']);
    });
    it('a RoleBinding of a ClusterRole grants it namespaced', () => {
      const reader = role('ClusterRole', 'reader', [rule('', 'configmaps', ['get'])]);
      expect(changes({}, { objects: [reader, binding('RoleBinding', 'ClusterRole', 'reader')] })).toEqual([
        'permission/rule-added: service account metrics gains namespaced get on configmaps',
      ]);
    });
    const external = (kind: string, roleKind: string, role: string, subject: Record<string, string>) => ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind,
      metadata: { name: `${role}-binding` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name: role },
      subjects: [subject],
    });
    const metricsAccount = { kind: 'ServiceAccount', name: 'metrics', namespace: 'system' };
    it.each([
      ['cluster-admin', 'ClusterRoleBinding', 'ClusterRole'],
      ['admin', 'RoleBinding', 'ClusterRole'],
      ['edit', 'ClusterRoleBinding', 'ClusterRole'],
      ['other-operator-manager', 'ClusterRoleBinding', 'ClusterRole'],
      ['leader-election', 'RoleBinding', 'Role'],
    ])('a binding to %s, a role the bundle does not ship, is an escalation', (name, kind, roleKind) => {
      expect(changes({}, { objects: [external(kind, roleKind, name, metricsAccount)] })).toEqual([
        `permission/escalation: service account metrics gains whatever ${roleKind}/${name} grants (a role the bundle does not ship)`,
      ]);
    });
    it('a binding to the built-in view is a new rule; one already held is nothing new, unless it becomes cluster-wide', () => {
      const view = (kind: string) => external(kind, 'ClusterRole', 'view', metricsAccount);
      expect(changes({}, { objects: [view('RoleBinding')] })).toEqual([
        'permission/rule-added: service account metrics gains whatever ClusterRole/view grants (a role the bundle does not ship)',
      ]);
      const admin = external('RoleBinding', 'ClusterRole', 'admin', metricsAccount);
      expect(changes({ objects: [admin] }, { objects: [admin] })).toEqual([]);
      const clusterAdmin = external('ClusterRoleBinding', 'ClusterRole', 'admin', metricsAccount);
      expect(changes({ objects: [admin] }, { objects: [clusterAdmin] })).toEqual([
        'permission/escalation: service account metrics gains whatever ClusterRole/admin grants (a role the bundle does not ship)',
      ]);
      expect(changes({ objects: [admin] }, {})).toEqual([
        'permission/removed: service account metrics loses whatever ClusterRole/admin grants (a role the bundle does not ship)',
      ]);
    });
    it('one finding for a role bound to a holder twice', () => {
      const twice = [
        external('ClusterRoleBinding', 'ClusterRole', 'cluster-admin', metricsAccount),
        {
          ...external('RoleBinding', 'ClusterRole', 'cluster-admin', metricsAccount),
          metadata: { name: 'again' },
        },
      ];
      expect(changes({}, { objects: twice })).toEqual([
        'permission/escalation: service account metrics gains whatever ClusterRole/cluster-admin grants (a role the bundle does not ship)',
      ]);
    });
    it('users and groups a binding names hold its rights too', () => {
      const reader = role('ClusterRole', 'reader', [rule('', 'configmaps', ['get'])]);
      const everyone = { kind: 'Group', name: 'system:authenticated', apiGroup: 'rbac.authorization.k8s.io' };
      const alice = { kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' };
      expect(
        changes(
          {},
          {
            objects: [
              reader,
              external('ClusterRoleBinding', 'ClusterRole', 'reader', everyone),
              external('ClusterRoleBinding', 'ClusterRole', 'cluster-admin', alice),
            ],
          },
        ),
      ).toEqual([
        'permission/escalation: user alice gains whatever ClusterRole/cluster-admin grants (a role the bundle does not ship)',
        'permission/rule-added: group system:authenticated gains cluster-wide get on configmaps',
      ]);
    });
    it('a ClusterRole new with an aggregationRule or aggregating into a built-in role is an escalation', () => {
      const aggregated = {
        ...role('ClusterRole', 'all-readers', []),
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'example.com/reader': 'true' } }] },
      };
      const intoAdmin = {
        ...role('ClusterRole', 'memcached-editor', [rule('cache.example.com', 'memcacheds', ['get'])]),
        metadata: {
          name: 'memcached-editor',
          labels: { 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' },
        },
      };
      expect(changes({}, { objects: [aggregated, intoAdmin] })).toEqual([
        'permission/escalation: ClusterRole all-readers gains the rules of every ClusterRole its aggregationRule selects (filled in on the cluster)',
        'permission/escalation: ClusterRole memcached-editor widens the built-in ClusterRole admin for everyone bound to it (label rbac.authorization.k8s.io/aggregate-to-admin)',
        'permission/rule-added: ClusterRole memcached-editor gains cluster-wide get on memcacheds.cache.example.com',
      ]);
      expect(changes({ objects: [aggregated, intoAdmin] }, { objects: [aggregated, intoAdmin] })).toEqual([]);
    });
    it('a URL rule ending in several * covers what the same rule with one covers', () => {
      const health = (urls: string[]) => ({
        objects: [role('ClusterRole', 'health', [{ nonResourceURLs: urls, verbs: ['get'] }])],
      });
      expect(changes(health(['/healthz**']), health(['/healthz**', '/healthz/ready']))).toEqual([]);
    });
    it('a role nothing binds is named by itself, as are non-resource URLs', () => {
      const metrics = role('ClusterRole', 'metrics-reader', [
        { nonResourceURLs: ['/metrics'], verbs: ['get'] },
      ]);
      expect(changes({}, { objects: [metrics] })).toEqual([
        'permission/rule-added: ClusterRole metrics-reader gains cluster-wide get on non-resource URL /metrics',
      ]);
      expect(changes({ objects: [metrics] }, { objects: [metrics] })).toEqual([]);
    });
  });

  it('a bundle without manifests gives one info finding', () => {
    expect(changes(undefined, { cluster: [rule('', 'secrets', ['get'])] })).toEqual([
      'permission/not-checked: not checked: memcached-operator.v0.2.0 carries no manifests',
    ]);
    expect(permissionChangesOfEdge(edge(undefined, undefined)).map((f) => [f.severity, f.message])).toEqual([
      [
        'info',
        'memcached-operator 0.2.0 → 0.3.0: not checked: memcached-operator.v0.2.0 and memcached-operator.v0.3.0 carry no manifests',
      ],
    ]);
  });
});
