import { findStatusCondition, type KubeObject } from '@opkit/controller-runtime';
import { eventually, testKubeConfig, useCrds, useTestNamespace } from '@opkit/test-cluster/vitest';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  ClusterClient,
  createRedisOperator,
  parseClusterNodes,
  parseInfo,
  REDIS_CLUSTER,
  type RedisCluster,
  RedisConnection,
  redisClusterCrd,
} from '../src/index.js';
import { KeySet, openSlots } from './support/data.js';
import { redisCluster } from './support/operator.js';
import { type OperatorProcess, startOperatorProcess } from './support/operator-process.js';

// The operator runs as its own process here (its `main.ts`), so it can be killed outright.
const ns = useTestNamespace({
  prefix: 'redis-proc',
  labels: { 'pod-security.kubernetes.io/enforce': 'restricted' },
});
useCrds([redisClusterCrd], { namespace: () => ns.name });
const access = createRedisOperator({ kubeConfig: testKubeConfig(), namespaces: ['default'] });
const api = () => access.apiClient;
const get = (name: string) => api().get<RedisCluster>(REDIS_CLUSTER, name, ns.name);
const running: OperatorProcess[] = [];

afterEach(async () => {
  for (const p of running.splice(0)) {
    p.child.kill('SIGKILL');
    await p.exited;
  }
});
afterAll(() => access.transport.close());

async function formed(name: string, size: number, timeoutMs: number): Promise<RedisCluster> {
  return eventually(
    `${name} to be formed with ${size} nodes`,
    async () => {
      const cr = await get(name);
      const ok =
        findStatusCondition(cr.status?.conditions, 'Available')?.status === 'True' &&
        findStatusCondition(cr.status?.conditions, 'Progressing')?.status === 'False' &&
        cr.status?.observedGeneration === cr.metadata.generation &&
        cr.status?.nodes?.length === size &&
        cr.status?.members?.every((m) => m.nodeId);
      return ok ? cr : undefined;
    },
    { timeoutMs, intervalMs: 500 },
  );
}

/** Fails at once, with its last log lines, should the operator process end while the test waits on it. */
function whileAlive<T>(operator: OperatorProcess, wait: Promise<T>): Promise<T> {
  const ended = operator.exited.then((how): never => {
    throw new Error(`the operator process ended (${how}):\n${operator.lines.slice(-30).join('\n')}`);
  });
  return Promise.race([wait, ended]);
}

describe('the operator process', () => {
  it('converges after a SIGKILL in the middle of a scale-out 6→12: every key, no open slot, cluster_state:ok', async () => {
    const first = startOperatorProcess(ns.name);
    running.push(first);
    await api().create(redisCluster('killed', ns.name, { size: 6 }));
    let cr = await whileAlive(first, formed('killed', 6, 120_000));
    const secret = await api().get<KubeObject & { data: Record<string, string> }>(
      { apiVersion: 'v1', kind: 'Secret' },
      'killed-auth',
      ns.name,
    );
    const pw = Buffer.from(secret.data.password!, 'base64').toString('utf8');
    const client = new ClusterClient(
      cr.status!.members!.map((m) => `${m.ip}:6379`),
      { password: pw },
    );
    try {
      const data = new KeySet(client, 'killed');
      await data.write();

      // The old primaries give slots to the new ones: kill the operator as soon as one of them has a slot open.
      const sources = cr.status!.members!.filter((m) => m.role === 'primary').map((m) => `${m.ip}:6379`);
      await api().patch({ ...REDIS_CLUSTER, name: 'killed', namespace: ns.name }, { spec: { size: 12 } });
      await eventually(
        'a slot migration to be under way',
        async () =>
          (await Promise.all(sources.map((s) => openSlots(s, pw).catch(() => 0)))).some((n) => n > 0),
        { timeoutMs: 120_000, intervalMs: 10 },
      );
      first.child.kill('SIGKILL');
      expect(await first.exited).toBe('SIGKILL');
      const open = (await Promise.all(sources.map((s) => openSlots(s, pw)))).reduce((a, b) => a + b, 0);
      const held = await Promise.all(
        sources.map(async (s) => {
          const c = await RedisConnection.connect(s, { password: pw });
          try {
            return parseClusterNodes(await c.text('CLUSTER', 'NODES')).find((n) => n.myself)!.slots.length;
          } finally {
            c.close();
          }
        }),
      );
      const left = held.reduce((a, b) => a + b, 0) - 8192;
      console.info(`redis operator killed with ${open} slot(s) open and ${left} still to move`);
      // Killed during the scale-out: slots still open, or still on the old primaries.
      expect(open > 0 || left > 0).toBe(true);

      // A new process picks the cluster up from what the nodes say, finishing the open slots first.
      const second = startOperatorProcess(ns.name);
      running.push(second);
      cr = await whileAlive(second, formed('killed', 12, 180_000));
      expect(cr.status?.primaries).toBe(6);
      for (const p of cr.status!.members!.filter((m) => m.role === 'primary'))
        expect(p.slotCount).toBeGreaterThan(2600);
      for (const m of cr.status!.members!) {
        expect(await openSlots(`${m.ip}:6379`, pw), `open slots on ${m.pod}`).toBe(0);
        const c = await RedisConnection.connect(`${m.ip}:6379`, { password: pw });
        try {
          expect(parseInfo(await c.text('CLUSTER', 'INFO')).cluster_state, m.pod).toBe('ok');
        } finally {
          c.close();
        }
      }
      expect(await data.missing(), 'keys lost across the operator restart').toEqual([]);
      expect(second.lines.some((l) => l.includes('MigrationResumed') || l.includes('migrated slots'))).toBe(
        true,
      );
      for (const line of [...first.lines, ...second.lines]) expect(line).not.toContain(pw);
    } finally {
      client.close();
    }
  });
});
