import { describe, expect, it } from 'vitest';
import { isConverged } from './convergence.js';

const cr = (size: number, available: string, observedGeneration?: number) => ({
  metadata: { name: 'a', namespace: 'ns', generation: 2 },
  spec: { size },
  status: { conditions: [{ type: 'Available', status: available, observedGeneration }] },
});

const deployment = (replicas: number, ready: number, observed = 5) => ({
  metadata: { name: 'a', namespace: 'ns', generation: 5 },
  spec: { replicas },
  status: { observedGeneration: observed, replicas, updatedReplicas: replicas, readyReplicas: ready },
});

describe('isConverged', () => {
  it('needs Available=True and every replica of the right size ready', () => {
    expect(isConverged(cr(2, 'True'), deployment(2, 2))).toBe(true);
    expect(isConverged(cr(2, 'True', 2), deployment(2, 2))).toBe(true);
    expect(isConverged(cr(2, 'Unknown'), deployment(2, 2))).toBe(false);
    expect(isConverged(cr(2, 'True'), deployment(2, 1))).toBe(false);
    expect(isConverged(cr(2, 'True'), deployment(1, 1))).toBe(false);
    expect(isConverged(cr(2, 'True'), undefined)).toBe(false);
  });

  it('ignores an Available condition of an older generation and a Deployment status not yet observed', () => {
    expect(isConverged(cr(2, 'True', 1), deployment(2, 2))).toBe(false);
    expect(isConverged(cr(2, 'True'), deployment(2, 2, 4))).toBe(false);
  });
});
