import { describe, expect, it } from 'vitest';
import {
  DEPLOY_LABEL,
  DEPLOY_RUN_ANNOTATION,
  type DeployObject,
  deployedBy,
  describeObject,
  markDeployed,
  planDeploy,
  planUndeploy,
} from './deployed-objects.js';

const OPERATOR = 'memcached-deploy';
const crd: DeployObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'memcacheds.cache.example.com' },
};
const deployment: DeployObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'memcached-controller-manager', namespace: 'memcached-system', labels: { app: 'm' } },
};

describe('what undeploy may delete', () => {
  it('is what deploy of the same operator marked: label and annotation agreeing with the object', () => {
    const marked = markDeployed(deployment, OPERATOR, 'run-1');
    expect(marked.metadata?.labels).toEqual({ app: 'm', [DEPLOY_LABEL]: 'run-1' });
    expect(deployedBy(marked, OPERATOR)).toBe(true);
    expect(deployedBy(marked, 'redis-deploy')).toBe(false);
    expect(deployedBy(deployment, OPERATOR)).toBe(false);
    // A label or annotation alone, or the mark of another object copied onto this one, proves nothing.
    const annotations = marked.metadata?.annotations ?? {};
    expect(deployedBy({ ...marked, metadata: { ...marked.metadata, annotations: {} } }, OPERATOR)).toBe(
      false,
    );
    expect(deployedBy({ ...marked, metadata: { ...marked.metadata, labels: {} } }, OPERATOR)).toBe(false);
    expect(deployedBy({ ...marked, metadata: { ...marked.metadata, name: 'other' } }, OPERATOR)).toBe(false);
    expect(
      deployedBy(
        { ...marked, metadata: { ...marked.metadata, annotations: { [DEPLOY_RUN_ANNOTATION]: '{' } } },
        OPERATOR,
      ),
    ).toBe(false);
    expect(annotations[DEPLOY_RUN_ANNOTATION]).toBeDefined();
  });

  it('leaves objects deploy did not apply, and a CRD with objects unless --delete-crds', () => {
    const foreignCrd: DeployObject = { ...crd, metadata: { name: 'widgets.example.com' } };
    const live = [markDeployed(crd, OPERATOR, 'r'), markDeployed(deployment, OPERATOR, 'r'), foreignCrd];
    const counts = new Map([
      ['memcacheds.cache.example.com', 2],
      ['widgets.example.com', 5],
    ]);
    const kept = planUndeploy(live, counts, OPERATOR, false);
    expect(kept.delete.map((o) => o.kind)).toEqual(['Deployment']);
    expect(kept.emptyFirst).toEqual([]);
    expect(kept.left).toEqual([
      {
        object: 'CustomResourceDefinition memcacheds.cache.example.com',
        reason: '2 objects of it still exist (--delete-crds deletes them with it)',
      },
      {
        object: 'CustomResourceDefinition widgets.example.com',
        reason: `not applied by opkit deploy of ${OPERATOR} (no opkit.dev/deploy label and run annotation of it)`,
      },
    ]);

    const all = planUndeploy(live, counts, OPERATOR, true);
    expect(all.emptyFirst).toEqual([{ resource: 'memcacheds.cache.example.com', objects: 2 }]);
    expect(all.delete.map((o) => o.kind)).toEqual(['CustomResourceDefinition', 'Deployment']);
    expect(all.left.map((l) => l.object)).toEqual(['CustomResourceDefinition widgets.example.com']);

    // Without objects, its own CRD goes by default.
    expect(planUndeploy(live, new Map(), OPERATOR, false).delete).toHaveLength(2);
  });
});

describe('what deploy marks', () => {
  const namespace: DeployObject = {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'memcached-system' },
  };
  const rendered = [namespace, crd, deployment];

  it('leaves unmarked what existed before it, so that undeploy leaves it and what it holds', () => {
    // The namespace and the CRD were made by hand beforehand; the Deployment is new.
    const before = [namespace, { ...crd, metadata: { ...crd.metadata, labels: { team: 'a' } } }];
    const plan = planDeploy(rendered, before, OPERATOR, 'run-1');
    expect(plan.apply.map((o) => deployedBy(o, OPERATOR))).toEqual([false, false, true]);
    expect(plan.apply[0]).toBe(namespace);
    expect(plan.found).toEqual([
      {
        object: 'Namespace memcached-system',
        reason: `existed before, not applied by opkit deploy of ${OPERATOR}: updated without its opkit.dev/deploy mark, so undeploy leaves it`,
      },
      expect.objectContaining({ object: 'CustomResourceDefinition memcacheds.cache.example.com' }),
    ]);

    // The cluster after the apply, then undeploy: only the Deployment goes.
    const after = plan.apply.map((o, i) => (i === 1 ? { ...o, metadata: before[1]?.metadata } : o));
    const undeploy = planUndeploy(after, new Map(), OPERATOR, true);
    expect(undeploy.delete.map(describeObject)).toEqual([
      'Deployment memcached-system/memcached-controller-manager',
    ]);
    expect(undeploy.left.map((l) => l.object)).toEqual([
      'Namespace memcached-system',
      'CustomResourceDefinition memcacheds.cache.example.com',
    ]);
  });

  it('marks again what an earlier deploy of the operator made, and matches by group, kind, namespace and name', () => {
    const earlier = [markDeployed(namespace, OPERATOR, 'run-0')];
    expect(planDeploy(rendered, earlier, OPERATOR, 'run-1').apply.every((o) => deployedBy(o, OPERATOR))).toBe(
      true,
    );
    // Another operator's deploy made it: not ours either.
    const theirs = [markDeployed(namespace, 'redis-deploy', 'run-9')];
    expect(planDeploy(rendered, theirs, OPERATOR, 'run-1').found).toHaveLength(1);
    // Same name, another namespace or API group: a different object, so this one is new and marked.
    const elsewhere: DeployObject[] = [
      { ...deployment, metadata: { ...deployment.metadata, namespace: 'other' } },
      { ...crd, apiVersion: 'apiextensions.example.com/v1' },
    ];
    const plan = planDeploy(rendered, elsewhere, OPERATOR, 'run-1');
    expect(plan.found).toEqual([]);
    expect(plan.apply.every((o) => deployedBy(o, OPERATOR))).toBe(true);
  });
});
