import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { eventually, testKubeConfig, useTestNamespace } from '@opkit/test-cluster/vitest';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { directClient } from '../src/client/direct-client.js';
import { installWidgetCrd, WIDGET } from './support/widgets.js';

interface Line {
  event: string;
  identity: string;
  t: number;
  error?: string;
}

interface Replica {
  readonly child: ChildProcess;
  readonly lines: Line[];
}

const ns = useTestNamespace({ prefix: 'election' });
const replicas: Replica[] = [];

function startReplica(identity: string, kubeconfig: string = inject('opkitKubeconfig')): Replica {
  const child = spawn(
    process.execPath,
    [
      '--conditions=@opkit/source',
      '--import',
      'tsx',
      join(import.meta.dirname, 'fixtures', 'elected-operator.ts'),
      kubeconfig,
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
  for (const p of proxies.splice(0)) p.close();
});

// The proxied kubeconfigs carry the admin's credentials: in a directory of this file's own, removed after it.
const kubeconfigDir = mkdtempSync(join(tmpdir(), 'election-proxy-'));
afterAll(() => rmSync(kubeconfigDir, { recursive: true, force: true }));

/**
 * A TCP proxy to the API server that can go silent: once stalled, nothing more is forwarded either way and new
 * connections are held open unanswered — a network path that hangs rather than fails.
 */
interface StallingProxy {
  readonly port: number;
  stall(): void;
  close(): void;
}

const proxies: StallingProxy[] = [];

async function stallingProxy(target: URL): Promise<StallingProxy> {
  let stalled = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('error', () => {});
    if (stalled) return;
    const upstream = connect(Number(target.port || 443), target.hostname);
    sockets.add(upstream);
    upstream.on('error', () => client.destroy());
    client.on('data', (chunk) => stalled || upstream.write(chunk));
    upstream.on('data', (chunk) => stalled || client.write(chunk));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => stalled || client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxy = {
    port: (server.address() as { port: number }).port,
    stall: () => {
      stalled = true;
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
  proxies.push(proxy);
  return proxy;
}

/** A copy of the test kubeconfig that reaches the API server through `port` on loopback. */
function kubeconfigThrough(port: number): string {
  const config = testKubeConfig();
  const cluster = config.getCurrentCluster();
  if (!cluster) throw new Error('the test kubeconfig has no current cluster');
  const path = join(kubeconfigDir, `${port}.kubeconfig`);
  const proxied = JSON.parse(config.exportConfig()) as {
    clusters: { name: string; cluster: { server: string } }[];
  };
  for (const entry of proxied.clusters) {
    if (entry.name === cluster.name) entry.cluster.server = `https://127.0.0.1:${port}`;
  }
  writeFileSync(path, JSON.stringify(proxied));
  return path;
}

describe('leader election between two managers', () => {
  it('fails over after SIGKILL within lease duration + retry period, and after SIGTERM within 3 s', async () => {
    const api = directClient(testKubeConfig());
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

  it('a leader whose API connection hangs stops acting before another replica takes over', async () => {
    const api = directClient(testKubeConfig());
    await installWidgetCrd(api);
    await api.create({ ...WIDGET, metadata: { name: 'w', namespace: ns.name }, spec: { value: 'w' } });
    const server = new URL(testKubeConfig().getCurrentCluster()?.server ?? '');
    const proxy = await stallingProxy(server);

    const a = startReplica('replica-a', kubeconfigThrough(proxy.port));
    await eventually('replica a to lead and reconcile', async () => first(a, 'reconcile-end'), {
      timeoutMs: 30_000,
    });
    const b = startReplica('replica-b');
    await eventually('replica b to start', async () => first(b, 'started'), { timeoutMs: 30_000 });
    await new Promise((resolve) => setTimeout(resolve, 3000));

    const stalledAt = Date.now();
    proxy.stall();
    const lost = await eventually('replica a to give up leading', async () => first(a, 'lost'), {
      timeoutMs: 30_000,
    });
    const bElected = await eventually('replica b to be elected', async () => first(b, 'elected'), {
      timeoutMs: 30_000,
    });
    const aLast = last(a, 'reconcile-start');
    if (!aLast) throw new Error('replica a never reconciled');
    const gap = bElected.t - aLast.t;
    console.info(
      `leader election, hung leader: a gave up ${lost.t - stalledAt} ms after its connection hung, ` +
        `b was elected ${bElected.t - stalledAt} ms after; gap between a's last reconcile and b's election ${gap} ms`,
    );
    expect(lost.error).toMatch(/could not be renewed within 10000 ms/);
    expect(lost.t).toBeLessThan(bElected.t);
    expect(gap).toBeGreaterThan(0);
  });
});
