import { describe, expect, it } from 'vitest';
import type { Manifest } from '../manifest/manifest.js';
import { displayNameOf } from './base.js';
import { compareKubeAwareVersions, ownedCrdDescriptions } from './owned-crds.js';
import { foldPermissions } from './permissions.js';
import { collectRelatedImages, mergeRelatedImages } from './related-images.js';

const crd = (group: string, kind: string, plural: string, versions: string[]): Manifest => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.${group}` },
  spec: { group, names: { kind, plural }, versions: versions.map((name) => ({ name })) },
});

describe('compareKubeAwareVersions', () => {
  it('orders Kubernetes versions GA > beta > alpha, then other strings', () => {
    const sorted = ['v1alpha1', 'foo', 'v1', 'v2beta1', 'v1beta2', 'v2', 'bar', 'v1beta1', 'v2alpha1'].sort(
      (a, b) => -compareKubeAwareVersions(a, b),
    );
    // apimachinery's own example order: stability before the major version.
    expect(sorted).toStrictEqual([
      'v2',
      'v1',
      'v2beta1',
      'v1beta2',
      'v1beta1',
      'v2alpha1',
      'v1alpha1',
      'bar',
      'foo',
    ]);
  });
});

describe('ownedCrdDescriptions', () => {
  it('lists every version, sorted by name, kind and newest version first, keeping base entries', () => {
    const owned = ownedCrdDescriptions(
      [
        crd('b.example.com', 'Beta', 'betas', ['v1alpha1', 'v1']),
        crd('a.example.com', 'Alpha', 'alphas', ['v1']),
      ],
      [
        {
          name: 'betas.b.example.com',
          version: 'v1',
          kind: 'Beta',
          displayName: 'The Beta',
          description: 'kept',
        },
      ],
    );
    expect(owned).toStrictEqual([
      { name: 'alphas.a.example.com', version: 'v1', kind: 'Alpha', displayName: 'Alpha' },
      {
        name: 'betas.b.example.com',
        version: 'v1',
        kind: 'Beta',
        displayName: 'The Beta',
        description: 'kept',
      },
      { name: 'betas.b.example.com', version: 'v1alpha1', kind: 'Beta', displayName: 'Beta' },
    ]);
  });

  it('drops base entries for versions that no longer exist', () => {
    const owned = ownedCrdDescriptions(
      [crd('a.example.com', 'Alpha', 'alphas', ['v1'])],
      [{ name: 'alphas.a.example.com', version: 'v1beta1', kind: 'Alpha', description: 'old' }],
    );
    expect(owned.map((o) => o.version)).toStrictEqual(['v1']);
  });
});

describe('displayNameOf', () => {
  it('splits dashes and camel case', () => {
    expect([
      displayNameOf('memcached-operator'),
      displayNameOf('containerPort'),
      displayNameOf('MemcachedCluster'),
    ]).toStrictEqual(['Memcached Operator', 'Container Port', 'Memcached Cluster']);
  });
});

describe('foldPermissions', () => {
  const role = (kind: string, name: string, verb: string): Manifest => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind,
    metadata: { name },
    rules: [{ apiGroups: [''], resources: ['pods'], verbs: [verb] }],
  });
  const binding = (kind: string, name: string, roleKind: string, roleName: string, sa: string): Manifest => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind,
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name: roleName },
    subjects: [{ kind: 'ServiceAccount', name: sa }],
  });

  it('merges roles per service account, folds ClusterRoles bound by RoleBindings into permissions, sorts by account', () => {
    const folded = foldPermissions(
      [
        role('Role', 'r1', 'get'),
        role('ClusterRole', 'c1', 'list'),
        role('ClusterRole', 'c2', 'watch'),
        role('ClusterRole', 'unbound', 'delete'),
        binding('RoleBinding', 'b1', 'Role', 'r1', 'zeta'),
        binding('RoleBinding', 'b2', 'ClusterRole', 'c1', 'zeta'),
        binding('RoleBinding', 'b3', 'Role', 'r1', 'alpha'),
        binding('ClusterRoleBinding', 'b4', 'ClusterRole', 'c2', 'alpha'),
        binding('ClusterRoleBinding', 'b5', 'ClusterRole', 'c2', 'someone-else'),
      ],
      new Set(['alpha', 'zeta']),
    );
    expect(folded.permissions).toStrictEqual([
      { serviceAccountName: 'alpha', rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] },
      {
        serviceAccountName: 'zeta',
        rules: [
          { apiGroups: [''], resources: ['pods'], verbs: ['get'] },
          { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
        ],
      },
    ]);
    expect(folded.clusterPermissions).toStrictEqual([
      { serviceAccountName: 'alpha', rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['watch'] }] },
    ]);
    expect(folded.remaining.map((o) => o.metadata.name)).toStrictEqual(['unbound', 'b5']);
  });
});

describe('related images', () => {
  const dep = (env: Record<string, string>, image = 'op:1'): Manifest => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd' },
    spec: {
      template: {
        spec: {
          containers: [
            { name: 'manager', image, env: Object.entries(env).map(([name, value]) => ({ name, value })) },
          ],
        },
      },
    },
  });

  it('names RELATED_IMAGE_ variables by their lower-cased suffix and adds the operator image', () => {
    expect(collectRelatedImages([dep({ RELATED_IMAGE_FOO_BAR: 'foo:1', OTHER: 'x' })])).toStrictEqual({
      images: [
        { name: 'foo-bar', image: 'foo:1' },
        { name: 'manager', image: 'op:1' },
      ],
      warnings: [],
    });
  });

  it('keeps the base list and adds only new images with free names', () => {
    expect(
      mergeRelatedImages(
        [{ name: 'foo-bar', image: 'foo:0' }],
        [
          { name: 'foo-bar', image: 'foo:1' },
          { name: 'manager', image: 'op:1' },
        ],
      ),
    ).toStrictEqual({
      images: [
        { name: 'foo-bar', image: 'foo:0' },
        { name: 'manager', image: 'op:1' },
      ],
      warnings: [
        'related image "foo-bar" (foo:1) conflicts with the base CSV\'s entry of that name; the base wins',
      ],
    });
  });
});
