import { describe, expect, it } from 'vitest';
import { isPodReady } from './pod.js';

type Conditions = { type: string; status: string }[];

const pod = (conditions?: Conditions) => ({ status: conditions ? { conditions } : {} });

describe('isPodReady', () => {
  it('is true when the Ready condition is True', () => {
    expect(isPodReady(pod([{ type: 'Ready', status: 'True' }]))).toBe(true);
  });

  it('is false when the Ready condition is False or Unknown', () => {
    expect(isPodReady(pod([{ type: 'Ready', status: 'False' }]))).toBe(false);
    expect(isPodReady(pod([{ type: 'Ready', status: 'Unknown' }]))).toBe(false);
  });

  it('is false when only other conditions are True (scheduled, containers ready, initialized)', () => {
    const notYetReady = pod([
      { type: 'PodScheduled', status: 'True' },
      { type: 'Initialized', status: 'True' },
      { type: 'ContainersReady', status: 'True' },
      { type: 'Ready', status: 'False' },
    ]);
    expect(isPodReady(notYetReady)).toBe(false);
    expect(isPodReady(pod([{ type: 'ContainersReady', status: 'True' }]))).toBe(false);
  });

  it('is true whatever the position of Ready among the conditions', () => {
    const ready = pod([
      { type: 'PodScheduled', status: 'True' },
      { type: 'Ready', status: 'True' },
      { type: 'ContainersReady', status: 'True' },
    ]);
    expect(isPodReady(ready)).toBe(true);
  });

  it('is false for a pod the kubelet has not reported on yet (no status, no conditions)', () => {
    expect(isPodReady({})).toBe(false);
    expect(isPodReady(pod())).toBe(false);
    expect(isPodReady(pod([]))).toBe(false);
  });
});
