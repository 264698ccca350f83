import { describe, expect, it } from 'vitest';
import {
  DEPLOY_LABEL,
  DEPLOY_RUN_ANNOTATION,
  type DeployObject,
  deployedBy,
  markDeployed,
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
