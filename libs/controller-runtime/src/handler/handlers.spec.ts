import { describe, expect, it } from 'vitest';
import type { KubeObject, Stored } from '../object.js';
import { enqueueForInstanceLabel } from './handlers.js';

const pod = (labels: Record<string, string>): Stored<KubeObject> => ({
  metadata: { name: 'cache-0', namespace: 'ns', uid: 'u-1', resourceVersion: '1', labels },
});

describe('enqueueForInstanceLabel', () => {
  const map = enqueueForInstanceLabel('cache-operator');

  it('reconciles the instance the labels name, in the object’s namespace', () => {
    const labels = {
      'app.kubernetes.io/instance': 'cache',
      'app.kubernetes.io/managed-by': 'cache-operator',
    };
    expect(map(pod(labels))).toEqual([{ namespace: 'ns', name: 'cache' }]);
  });

  it('ignores objects another manager made, or that name no instance', () => {
    expect(
      map(pod({ 'app.kubernetes.io/instance': 'cache', 'app.kubernetes.io/managed-by': 'helm' })),
    ).toEqual([]);
    expect(map(pod({ 'app.kubernetes.io/managed-by': 'cache-operator' }))).toEqual([]);
    expect(map(pod({}))).toEqual([]);
  });
});
