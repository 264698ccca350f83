import type { Deployment, Pod } from '@opkit/controller-runtime/kinds';
import { describe, expect, it, vi } from 'vitest';
import { MEMCACHED, type Memcached } from '../api/v1beta1/memcached.js';
import {
  conditionEventType,
  imageNotConfiguredStatus,
  type ObservedServers,
  observedStatus,
} from './memcached-status.js';

// The status rules on their own: what a Memcached reports for what the reconciler saw.

const cr: Memcached = {
  ...MEMCACHED,
  metadata: { name: 'sessions', namespace: 'cache', generation: 4 },
  spec: { replicas: 2 },
};

function pod(name: string, ready: boolean, extra: Partial<Pod> = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, ...extra.metadata },
    status: {
      podIP: `10.0.0.${name.charCodeAt(0) - 96}`,
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
      ...extra.status,
    },
  };
}

/** A pod whose memcached container waits, for `reason`. */
function waitingPod(name: string, reason: string): Pod {
  const waiting = { name: 'memcached', image: 'm', imageID: '', ready: false, restartCount: 0 };
  return pod(name, false, {
    status: { containerStatuses: [{ ...waiting, state: { waiting: { reason } } }] },
  });
}

const rolledOut: Deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'sessions', generation: 7 },
  status: { observedGeneration: 7, replicas: 2, updatedReplicas: 2, readyReplicas: 2 },
};

const seen = (over: Partial<ObservedServers>): ObservedServers => ({
  deployment: rolledOut,
  pods: [pod('b', true), pod('a', true)],
  port: 11211,
  ...over,
});

const condition = (status: ReturnType<typeof observedStatus>, type: string) =>
  status.conditions?.find((c) => c.type === type);

describe('the status of a Memcached', () => {
  it('is Available once every replica of the unchanged Deployment is rolled out and ready', () => {
    const status = observedStatus(cr, seen({}));
    expect(condition(status, 'Available')).toMatchObject({
      status: 'True',
      reason: 'AllServersReady',
      observedGeneration: 4,
    });
    expect(condition(status, 'Progressing')).toMatchObject({ status: 'False', reason: 'RolloutComplete' });
    expect(condition(status, 'Degraded')).toMatchObject({ status: 'False', reason: 'AsExpected' });
    expect(status).toMatchObject({
      nodes: ['a', 'b'],
      servers: ['10.0.0.1:11211', '10.0.0.2:11211'],
      readyReplicas: 2,
      observedGeneration: 4,
    });
  });

  it('waits for new servers without calling it a loss when the ones it had still serve', () => {
    const available = observedStatus(cr, seen({}));
    const resized: Memcached = { ...cr, spec: { replicas: 3 }, status: available };
    // The Deployment was changed to 3 replicas; its controller has not yet seen the change.
    const unobserved: Deployment = { ...rolledOut, metadata: { ...rolledOut.metadata, generation: 8 } };
    const starting = observedStatus(resized, seen({ deployment: unobserved }));
    expect(condition(starting, 'Available')).toMatchObject({
      status: 'False',
      reason: 'ServersStarting',
      message: '2 of 3 servers ready',
    });
    // Still starting on the next pass, until a server it had is lost: that is a loss until all are back.
    const later = { ...resized, status: starting };
    expect(condition(observedStatus(later, seen({})), 'Available')?.reason).toBe('ServersStarting');
    const lost = observedStatus(later, seen({ pods: [pod('a', true), pod('b', false)] }));
    expect(condition(lost, 'Available')?.reason).toBe('ServersNotReady');
    const back = observedStatus({ ...resized, status: lost }, seen({}));
    expect(condition(back, 'Available')?.reason).toBe('ServersNotReady');
  });

  it('does not call a scale-down a loss while the Deployment still counts the removed server ready', () => {
    const three: Memcached = { ...cr, spec: { replicas: 3 } };
    const threeReady = [pod('a', true), pod('b', true), pod('c', true)];
    const before = observedStatus(
      three,
      seen({
        deployment: {
          ...rolledOut,
          status: { ...rolledOut.status, replicas: 3, updatedReplicas: 3, readyReplicas: 3 },
        },
        pods: threeReady,
      }),
    );
    expect(condition(before, 'Available')?.status).toBe('True');
    const lagging: Deployment = { ...rolledOut, status: { ...rolledOut.status, readyReplicas: 3 } };
    const scaledDown = observedStatus({ ...cr, status: before }, seen({ deployment: lagging }));
    expect(condition(scaledDown, 'Available')?.reason).toBe('ServersStarting');
  });

  it('counts servers replaced by a rolling update as starting, not lost', () => {
    const available = { ...cr, status: observedStatus(cr, seen({})) };
    const rolling: Deployment = { ...rolledOut, status: { ...rolledOut.status, updatedReplicas: 1 } };
    const replacing = observedStatus(available, seen({ deployment: rolling, pods: [pod('a', true)] }));
    expect(condition(replacing, 'Available')?.reason).toBe('ServersStarting');
  });

  it('is not yet serving while a new Memcached comes up', () => {
    const first = observedStatus(cr, seen({ pods: [pod('a', false), pod('b', false)] }));
    expect(condition(first, 'Available')?.reason).toBe('NoServersReady');
    const one = observedStatus({ ...cr, status: first }, seen({ pods: [pod('a', true), pod('b', false)] }));
    expect(condition(one, 'Available')?.reason).toBe('ServersNotReady');
  });

  it('names what the servers wait for, and leaves out pods being deleted', () => {
    const waiting = waitingPod('c', 'ImagePullBackOff');
    const leaving = pod('d', true, { metadata: { name: 'd', deletionTimestamp: '2026-01-01T00:00:00Z' } });
    const status = observedStatus(cr, seen({ pods: [waiting, leaving] }));
    expect(condition(status, 'Available')).toMatchObject({
      status: 'False',
      reason: 'NoServersReady',
      message: '0 of 2 servers ready (c: ImagePullBackOff)',
    });
    expect(status.nodes).toEqual(['c']);
    expect(status.servers).toEqual([]);
  });

  it('lists its servers in one order whatever the locale of the machine it runs on', () => {
    // Lithuanian sorts y before j: a replica with LANG=lt_LT must not reorder what one with en_US wrote.
    const lithuanian = new Intl.Collator('lt');
    const locale = vi.spyOn(String.prototype, 'localeCompare').mockImplementation(function (
      this: string,
      that: string,
    ) {
      return lithuanian.compare(this, that);
    });
    try {
      const status = observedStatus(cr, seen({ pods: [pod('y', true), pod('j', true)] }));
      expect(status.nodes).toEqual(['j', 'y']);
      expect(status.servers).toEqual(['10.0.0.10:11211', '10.0.0.25:11211']);
    } finally {
      locale.mockRestore();
    }
  });

  it('leaves out what every container waits for on its way to running', () => {
    const creating = waitingPod('c', 'ContainerCreating');
    const status = observedStatus(cr, seen({ pods: [pod('a', true), creating] }));
    expect(condition(status, 'Progressing')?.message).toBe('1 of 2 servers ready');
  });

  it('is Degraded with the Deployment’s reason when its rollout stalled', () => {
    const stalled: Deployment = {
      ...rolledOut,
      status: {
        ...rolledOut.status,
        conditions: [
          { type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: 'too slow' },
        ],
      },
    };
    const status = observedStatus(cr, seen({ deployment: stalled, pods: [pod('a', false)] }));
    expect(condition(status, 'Degraded')).toMatchObject({
      status: 'True',
      reason: 'ProgressDeadlineExceeded',
      message: 'too slow',
    });
    expect(condition(status, 'Progressing')).toMatchObject({
      status: 'False',
      reason: 'ProgressDeadlineExceeded',
    });
  });

  it('says so when no image is configured, keeping what it reported before', () => {
    const status = imageNotConfiguredStatus({ ...cr, status: { readyReplicas: 1 } }, 'no memcached image');
    expect(status.readyReplicas).toBe(1);
    expect(condition(status, 'Available')).toMatchObject({ status: 'False', reason: 'ImageNotConfigured' });
    expect(condition(status, 'Degraded')).toMatchObject({ status: 'True', reason: 'ImageNotConfigured' });
  });
});

describe('the events a condition change is worth', () => {
  it.each([
    [undefined, 'Available', 'True', 'Normal'],
    [undefined, 'Available', 'False', undefined],
    [undefined, 'Degraded', 'True', 'Warning'],
    [undefined, 'Degraded', 'False', undefined],
    ['True', 'Available', 'False', 'Warning'],
    ['False', 'Available', 'True', 'Normal'],
    ['True', 'Degraded', 'False', 'Normal'],
    ['False', 'Progressing', 'True', undefined],
    ['True', 'Available', 'True', undefined],
    ['True', 'Available', 'Unknown', undefined],
  ])('%s → %s=%s: %s', (before, type, status, expected) => {
    const previous = before === undefined ? undefined : { status: before };
    expect(conditionEventType(previous, { type, status })).toBe(expected);
  });

  it('says nothing of a resize or a rolling update that loses no server', () => {
    const starting = { type: 'Available', status: 'False', reason: 'ServersStarting' };
    expect(conditionEventType({ status: 'True', reason: 'AllServersReady' }, starting)).toBeUndefined();
    const ready = { type: 'Available', status: 'True', reason: 'AllServersReady' };
    expect(conditionEventType(starting, ready)).toBeUndefined();
    expect(conditionEventType({ status: 'False', reason: 'ServersNotReady' }, ready)).toBe('Normal');
  });

  it('warns when a resize or a rolling update that was waiting for new servers loses one that served', () => {
    const starting = { status: 'False', reason: 'ServersStarting' };
    const lost = { type: 'Available', status: 'False', reason: 'ServersNotReady' };
    expect(conditionEventType(starting, lost)).toBe('Warning');
    expect(conditionEventType(starting, { ...lost, reason: 'NoServersReady' })).toBe('Warning');
    expect(conditionEventType({ status: 'False', reason: 'NoServersReady' }, lost)).toBeUndefined();
    expect(
      conditionEventType(
        { status: 'False', reason: 'ServersNotReady' },
        { ...lost, reason: 'NoServersReady' },
      ),
    ).toBeUndefined();
  });
});
