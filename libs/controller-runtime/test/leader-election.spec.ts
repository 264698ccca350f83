import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { eventually, testKubeConfig, useTestNamespace } from '@opkit/test-cluster/vitest';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { KubeClient } from '../src/client/client.js';
import { ResourceMapper } from '../src/client/resource-mapper.js';
import { Transport } from '../src/client/transport.js';
import { installWidgetCrd, WIDGET } from './support/widgets.js';

interface Line {
  event: string;
  identity: string;
  t: number;
}

interface Replica {
  readonly child: ChildProcess;
  readonly lines: Line[];
}

const ns = useTestNamespace({ prefix: 'election' });
const replicas: Replica[] = [];

function startReplica(identity: string): Replica {
  const child = spawn(
    process.execPath,
    [
      '--conditions=@opkit/source',
      '--import',
      'tsx',
      join(import.meta.dirname, 'fixtures', 'elected-operator.ts'),
      inject('opkitKubeconfig'),
      ns.name,
      identity,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const replica = { child, lines: [] as Line[] };
  createInterface({ input: child.stdout! }).on('line', (line) =>
    replica.lines.push(JSON.parse(line) as Line),
  );
  replicas.push(replica);
  return replica;
}

const first = (r: Replica, event: string) => r.lines.find((l) => l.event === event);
const last = (r: Replica, event: string) => r.lines.findLast((l) => l.event === event);
const exited = (r: Replica) =>
  new Promise<void>((resolve) =>
    r.child.exitCode !== null ? resolve() : r.child.once('exit', () => resolve()),
  );

afterEach(() => {
  for (const r of replicas.splice(0)) r.child.kill('SIGKILL');
});

describe('leader election between two managers', () => {
  it('fails over after SIGKILL within lease duration + retry period, and after SIGTERM within 3 s', async () => {
    const api = new KubeClient(
      new Transport(testKubeConfig()),
      new ResourceMapper(new Transport(testKubeConfig())),
    );
    await installWidgetCrd(api);
    for (const name of ['a', 'b', 'c']) {
      await api.create({ ...WIDGET, metadata: { name, namespace: ns.name }, spec: { value: name } });
    }

    const a = startReplica('replica-a');
    await eventually('replica a to lead and reconcile', async () => first(a, 'reconcile-end'), {
      timeoutMs: 30_000,
    });
    const b = startReplica('replica-b');
    await eventually('replica b to start', async () => first(b, 'started'), { timeoutMs: 30_000 });
    await new Promise((resolve) => setTimeout(resolve, 4000));
    expect(first(b, 'elected')).toBeUndefined();

    // SIGKILL: the lease is not released; b takes over once it has seen it unrenewed for a lease duration.
    const killedAt = Date.now();
    a.child.kill('SIGKILL');
    await exited(a);
    const bElected = await eventually('replica b to be elected', async () => first(b, 'elected'), {
      timeoutMs: 30_000,
    });
    const takeover = bElected.t - killedAt;
    console.info(`leader election: takeover ${takeover} ms after SIGKILL of the leader`);
    expect(takeover).toBeLessThanOrEqual(15_000 + 2_000 * 1.2 + 500);
    expect(takeover).toBeGreaterThan(10_000); // it did wait for the lease to expire
    const bFirst = await eventually('b to reconcile', async () => first(b, 'reconcile-start'));
    expect(bFirst.t).toBeGreaterThan(last(a, 'reconcile-end')!.t);

    // SIGTERM: b finishes its reconciles and releases the lease; c takes over at its next retry.
    const c = startReplica('replica-c');
    await eventually('replica c to start', async () => first(c, 'started'), { timeoutMs: 30_000 });
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(first(c, 'elected')).toBeUndefined();
    const termAt = Date.now();
    b.child.kill('SIGTERM');
    const cElected = await eventually('replica c to be elected', async () => first(c, 'elected'), {
      timeoutMs: 20_000,
    });
    console.info(`leader election: takeover ${cElected.t - termAt} ms after SIGTERM of the leader`);
    expect(cElected.t - termAt).toBeLessThanOrEqual(3000);
    await exited(b);
    expect(first(b, 'stopped')).toBeDefined();
    const cFirst = await eventually('c to reconcile', async () => first(c, 'reconcile-start'));
    // At no moment do two replicas reconcile: every reconcile of b ended before c's first began.
    expect(last(b, 'reconcile-end')!.t).toBeLessThanOrEqual(cFirst.t);
    expect(b.lines.filter((l) => l.event === 'reconcile-start').length).toBe(
      b.lines.filter((l) => l.event === 'reconcile-end').length,
    );
  });
});
