import { findStatusCondition, type KubeObject } from '@opkit/controller-runtime';
import { CONFIG_MAP, POD, SERVICE } from '@opkit/controller-runtime/kinds';
import {
  eventually,
  podProcesses,
  unscheduledPod,
  useOperator,
  useTestNamespace,
} from '@opkit/test-cluster/vitest';
import { describe, expect, it } from 'vitest';
import {
  ClusterClient,
  keySlot,
  parseClusterNodes,
  parseInfo,
  REDIS_CLUSTER,
  type RedisCluster,
  RedisConnection,
} from '../src/index.js';
import { describeLoad, KeySet, type LoadReport, startLoad } from './support/data.js';
import { redisCluster, redisOperator } from './support/operator.js';

// Operand pods must pass Pod Security "restricted": every test namespace enforces it.
const ns = useTestNamespace({
  prefix: 'redis',
  labels: { 'pod-security.kubernetes.io/enforce': 'restricted' },
});
const operator = useOperator({ ...redisOperator, namespace: () => ns.name });
const api = () => operator.manager().apiClient;
const get = (name: string) => api().get<RedisCluster>(REDIS_CLUSTER, name, ns.name);

interface Secret extends KubeObject {
  data: Record<string, string>;
}
type StatefulSet = KubeObject & {
  spec: { replicas: number; serviceName: string; template: { spec: Record<string, unknown> } };
};

/** The redis-server process of a pod's container, as the host sees it. */
async function redisServer(pod: string): Promise<{ pid: number; argv: string[] }> {
  const object = await api().get({ apiVersion: 'v1', kind: 'Pod' }, pod, ns.name);
  const server = podProcesses(object.metadata.uid ?? '').find((p) => p.argv[0]?.startsWith('redis-server'));
  if (!server) throw new Error(`no redis-server process in pod ${pod}`);
  return server;
}

async function password(name: string): Promise<string> {
  const secret = await api().get<Secret>({ apiVersion: 'v1', kind: 'Secret' }, `${name}-auth`, ns.name);
  return Buffer.from(secret.data.password!, 'base64').toString('utf8');
}

/** Waits until the cluster is formed as the spec says: Available, not Progressing, `size` nodes. */
async function formed(name: string, size: number, timeoutMs = 120_000): Promise<RedisCluster> {
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

/** Slots of `0-5460 5462` as numbers. */
function slotsOf(ranges: string | undefined): number[] {
  return (ranges ?? '')
    .split(' ')
    .filter(Boolean)
    .flatMap((r) => {
      const [a, b] = r.split('-').map(Number) as [number, number | undefined];
      return Array.from({ length: (b ?? a) - a + 1 }, (_, i) => a + i);
    });
}

const addresses = (cr: RedisCluster) => cr.status!.members!.map((m) => `${m.ip}:6379`);

async function clusterInfo(address: string, pw: string): Promise<Record<string, string>> {
  const c = await RedisConnection.connect(address, { password: pw });
  try {
    return parseInfo(await c.text('CLUSTER', 'INFO'));
  } finally {
    c.close();
  }
}

/** Reasons of the events about one RedisCluster, or only of its events of one type. */
async function eventReasons(name: string, type?: 'Normal' | 'Warning'): Promise<string[]> {
  const events = await api().list<
    KubeObject & { reason?: string; type?: string; regarding?: { kind?: string; name?: string } }
  >({ apiVersion: 'events.k8s.io/v1', kind: 'Event' }, { namespace: ns.name });
  return events.items
    .filter((e) => e.regarding?.kind === 'RedisCluster' && e.regarding.name === name)
    .filter((e) => type === undefined || e.type === type)
    .map((e) => e.reason ?? '');
}

const scrape = async () =>
  (await fetch(`http://127.0.0.1:${operator.manager().metricsAddress!.port}/metrics`)).text();

/** The value of a per-cluster metric, or undefined when it has no series for that cluster. */
function metric(text: string, name: string, cluster: string): number | undefined {
  const line = text
    .split('\n')
    .find(
      (l) =>
        l.startsWith(`${name}{`) && l.includes(`name="${cluster}"`) && l.includes(`namespace="${ns.name}"`),
    );
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

/**
 * Runs `change` under client load and checks what the clients were told: no acknowledged write (one a replica
 * confirmed) may be lost; writes only the primary answered must also survive changes the operator makes itself,
 * but may go with a primary that fails before replicating them.
 */
async function underLoad<T>(
  client: ClusterClient,
  phase: string,
  change: () => Promise<T>,
  { operatorChange = true, clientErrors = Number.POSITIVE_INFINITY } = {},
): Promise<{ result: T; load: LoadReport }> {
  const running = startLoad(client, `load:${phase.replace(/\W+/g, '-')}`);
  let result: T;
  try {
    result = await change();
  } catch (error) {
    await running.stop().catch(() => undefined);
    throw error;
  }
  const load = await running.stop();
  console.info(describeLoad(phase, load));
  expect(load.acknowledged, `acknowledged writes during ${phase}`).toBeGreaterThan(0);
  expect(load.lost, `acknowledged writes lost during ${phase}`).toEqual([]);
  if (operatorChange) expect(load.lostUnreplicated, `writes answered OK lost during ${phase}`).toEqual([]);
  expect(load.clientErrors, `client errors during ${phase}`).toBeLessThanOrEqual(clientErrors);
  return { result, load };
}

describe('the RedisCluster operator', () => {
  it('forms a 6-node cluster: StatefulSet, Services, cluster_state:ok, 16384 slots, status.nodes', async () => {
    // Another application's pod, created first: the operator's pod watch, which delivers the namespace's pods in
    // order, would have cached it before the cluster's pods if it selected pods by anything but its own label.
    // Its ConfigMaps and Services likewise (the namespace's kube-root-ca.crt ConfigMap is not its own either).
    const theirs = { 'app.kubernetes.io/managed-by': 'someone-else' };
    await api().create(unscheduledPod('web-0', ns.name, theirs));
    await api().create({ ...CONFIG_MAP, metadata: { name: 'web', namespace: ns.name, labels: theirs } });
    await api().create({
      ...SERVICE,
      metadata: { name: 'web', namespace: ns.name, labels: theirs },
      spec: { clusterIP: 'None', selector: theirs, ports: [{ port: 80 }] },
    });
    await api().create(redisCluster('cache', ns.name, { size: 6 }));
    const cr = await formed('cache', 6);
    const cachedNames = async (type: typeof POD | typeof CONFIG_MAP | typeof SERVICE) =>
      (await operator.manager().cache.list(type, { namespace: ns.name })).items
        .map((o) => o.metadata.name)
        .sort();
    expect(await cachedNames(POD)).toEqual([0, 1, 2, 3, 4, 5].map((i) => `cache-${i}`));
    expect(await cachedNames(CONFIG_MAP)).toEqual(['cache-config']);
    expect(await cachedNames(SERVICE)).toEqual(['cache', 'cache-headless']);

    const sts = await api().get<StatefulSet>(
      { apiVersion: 'apps/v1', kind: 'StatefulSet' },
      'cache',
      ns.name,
    );
    expect(sts.spec.replicas).toBe(6);
    expect(sts.spec.serviceName).toBe('cache-headless');
    for (const service of ['cache', 'cache-headless'])
      await api().get({ apiVersion: 'v1', kind: 'Service' }, service, ns.name);
    await api().get({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget' }, 'cache', ns.name);

    expect(cr.status?.nodes).toEqual([0, 1, 2, 3, 4, 5].map((i) => `cache-${i}`));
    expect(cr.status?.clusterState).toBe('ok');
    expect(cr.status?.slotsAssigned).toBe(16384);
    expect(cr.status?.primaries).toBe(3);
    const members = cr.status!.members!;
    const primaries = members.filter((m) => m.role === 'primary');
    expect(primaries).toHaveLength(3);
    expect(primaries.reduce((n, p) => n + (p.slotCount ?? 0), 0)).toBe(16384);
    for (const replica of members.filter((m) => m.role === 'replica'))
      expect(primaries.map((p) => p.nodeId)).toContain(replica.primaryId);
    // Each primary has exactly one replica.
    expect(new Set(members.filter((m) => m.role === 'replica').map((m) => m.primaryId)).size).toBe(3);

    const pw = await password('cache');
    for (const address of addresses(cr)) {
      const info = await clusterInfo(address, pw);
      expect(info.cluster_state).toBe('ok');
      expect(info.cluster_slots_assigned).toBe('16384');
      expect(info.cluster_known_nodes).toBe('6');
    }
    expect(findStatusCondition(cr.status?.conditions, 'Degraded')?.status).toBe('False');
  });

  it('rejects bad input with messages naming the field', async () => {
    const rejected = async (spec: Partial<RedisCluster['spec']>) => {
      try {
        await api().create(redisCluster('invalid', ns.name, spec));
        await api().delete({ ...REDIS_CLUSTER, name: 'invalid', namespace: ns.name });
        return 'accepted';
      } catch (error) {
        return (error as Error).message;
      }
    };
    // A size that does not divide evenly is a cluster of at least 3 primaries, not an error.
    expect(await rejected({ size: 3 })).toBe('accepted');
    expect(await rejected({ size: 8, replicasPerPrimary: 2 })).toBe('accepted');
    expect(await rejected({ size: 2 })).toContain(
      'spec.size: Invalid value: 2: spec.size in body should be greater than or equal to 3',
    );
    expect(await rejected({ size: 6, replicasPerPrimary: -1 })).toContain('spec.replicasPerPrimary');
    expect(await rejected({ size: 6, config: { port: '7000' } })).toContain(
      'spec.config.port is managed by the operator and cannot be set',
    );
    expect(
      await rejected({ size: 6, config: { requirepass: 'x', 'maxmemory-policy': 'allkeys-lru' } }),
    ).toContain('spec.config.requirepass is managed by the operator');
    expect(await rejected({ size: 6, config: { 'cluster-enabled': 'no' } })).toContain(
      'spec.config.cluster-enabled',
    );
    expect(await rejected({ size: 6, config: { Port: '1' } })).toContain(
      'spec.config keys must be lower-case redis.conf directives',
    );
    // A second line would be a directive of its own, e.g. one the operator owns.
    expect(
      await rejected({ size: 6, config: { 'maxmemory-policy': 'allkeys-lru\nrequirepass x' } }),
    ).toContain(
      'spec.config[maxmemory-policy]: Invalid value: "allkeys-lru\\nrequirepass x": must be one line: a line break would start another redis.conf directive',
    );
    expect(await rejected({ size: 6, config: { 'maxmemory-policy': 'allkeys-lru\rdir /' } })).toContain(
      'spec.config[maxmemory-policy]',
    );
    expect(
      await rejected({ size: 3, replicasPerPrimary: 0, config: { 'maxmemory-policy': 'allkeys-lru' } }),
    ).toBe('accepted');
  });

  it('keeps the password out of pod specs, process command lines and operator logs', async () => {
    await api().create(redisCluster('secret', ns.name, { size: 3, replicasPerPrimary: 0 }));
    const cr = await formed('secret', 3);
    const pw = await password('secret');
    expect(pw.length).toBeGreaterThanOrEqual(24);

    const pods = await api().list<KubeObject & { spec: unknown }>(
      { apiVersion: 'v1', kind: 'Pod' },
      { namespace: ns.name, labelSelector: 'app.kubernetes.io/instance=secret' },
    );
    expect(pods.items).toHaveLength(3);
    for (const pod of pods.items) {
      expect(JSON.stringify(pod)).not.toContain(pw);
      const processes = podProcesses(pod.metadata.uid ?? '');
      expect(processes.length).toBeGreaterThan(0);
      for (const p of processes) expect(p.argv.join(' ')).not.toContain(pw);
    }
    const sts = await api().get({ apiVersion: 'apps/v1', kind: 'StatefulSet' }, 'secret', ns.name);
    expect(JSON.stringify(sts)).not.toContain(pw);
    const cm = await api().get({ apiVersion: 'v1', kind: 'ConfigMap' }, 'secret-config', ns.name);
    expect(JSON.stringify(cm)).not.toContain(pw);
    expect(JSON.stringify(cr)).not.toContain(pw);

    // The password works, and a client without it is refused.
    const address = addresses(cr)[0]!;
    expect((await clusterInfo(address, pw)).cluster_state).toBe('ok');
    const anonymous = await RedisConnection.connect(address);
    await expect(anonymous.call('GET', 'x')).rejects.toThrow(/NOAUTH/);
    anonymous.close();

    // The generated Secret, deleted, comes back with the password the cluster runs with.
    const SECRET = { apiVersion: 'v1', kind: 'Secret' };
    await api().delete({ ...SECRET, name: 'secret-auth', namespace: ns.name });
    const recreated = await eventually('the generated Secret to be re-created', async () => {
      try {
        return await api().get<Secret>(SECRET, 'secret-auth', ns.name);
      } catch {
        return undefined;
      }
    });
    expect(Buffer.from(recreated.data.password!, 'base64').toString('utf8')).toBe(pw);
    expect(recreated.metadata.ownerReferences?.[0]?.kind).toBe('RedisCluster');

    expect(operator.logs.length).toBeGreaterThan(0);
    for (const line of operator.logs) expect(line).not.toContain(pw);
  });

  it('keeps 10,000 keys through scale 6→12 and 12→6, a primary failure and a restart of every node', async () => {
    await api().create(redisCluster('data', ns.name, { size: 6 }));
    let cr = await formed('data', 6);
    const pw = await password('data');
    const client = new ClusterClient(addresses(cr), { password: pw });
    const data = new KeySet(client, 'key');
    const readAll = async (when: string) => expect(await data.missing(), `keys lost ${when}`).toEqual([]);
    const timed = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
      const started = Date.now();
      const result = await run();
      console.info(`redis ${what}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
      return result;
    };
    try {
      await data.write();
      await readAll('after writing');

      // Scale out: three more primaries with their replicas; half the slots migrate live, keys follow.
      ({ result: cr } = await underLoad(client, 'scale-out 6→12', async () => {
        await api().patch({ ...REDIS_CLUSTER, name: 'data', namespace: ns.name }, { spec: { size: 12 } });
        return timed('scale-out 6→12', () => formed('data', 12, 180_000));
      }));
      expect(cr.status?.primaries).toBe(6);
      for (const p of cr.status!.members!.filter((m) => m.role === 'primary'))
        expect(p.slotCount).toBeGreaterThan(2600);
      await readAll('after scaling out to 12');

      // Scale in: slots move off the leaving primaries, the nodes are forgotten, then the pods go.
      await data.write();
      ({ result: cr } = await underLoad(client, 'scale-in 12→6', async () => {
        await api().patch({ ...REDIS_CLUSTER, name: 'data', namespace: ns.name }, { spec: { size: 6 } });
        return timed('scale-in 12→6', () => formed('data', 6, 180_000));
      }));
      expect(cr.status?.primaries).toBe(3);
      for (const address of addresses(cr)) {
        const info = await clusterInfo(address, pw);
        expect(info.cluster_known_nodes).toBe('6');
        expect(info.cluster_state).toBe('ok');
      }
      await readAll('after scaling in to 6');

      // A primary stops answering: Redis fails over to its replica; killed, it comes back as a replica.
      // Clients keep writing throughout; a write only the stopped primary answered may go with it.
      const victim = cr.status!.members!.find((m) => m.role === 'primary')!;
      const failover = startLoad(client, 'load:failover');
      await new Promise((r) => setTimeout(r, 2000));
      const stopped = await redisServer(victim.pod!);
      process.kill(stopped!.pid, 'SIGSTOP');
      const witness = cr.status!.members!.find((m) => m.role === 'primary' && m.pod !== victim.pod)!;
      await eventually(
        'a replica of the stopped primary to be promoted',
        async () => {
          const c = await RedisConnection.connect(`${witness.ip}:6379`, { password: pw });
          try {
            const nodes = parseClusterNodes(await c.text('CLUSTER', 'NODES'));
            const old = nodes.find((n) => n.id === victim.nodeId);
            return old?.flags.includes('fail') && old.slots.length === 0;
          } finally {
            c.close();
          }
        },
        { timeoutMs: 60_000, intervalMs: 500 },
      );
      process.kill(stopped!.pid, 'SIGKILL');
      cr = await eventually(
        `${victim.pod} to rejoin as a replica`,
        async () => {
          const now = await formed('data', 6);
          return now.status!.members!.find((m) => m.pod === victim.pod)?.role === 'replica' ? now : undefined;
        },
        { timeoutMs: 90_000, intervalMs: 1000 },
      );
      const failedOver = await failover.stop();
      console.info(describeLoad('primary failover', failedOver));
      expect(failedOver.acknowledged).toBeGreaterThan(0);
      expect(failedOver.lost, 'acknowledged writes lost in the failover').toEqual([]);
      expect(cr.status?.primaries).toBe(3);
      await readAll('after a primary failed over');
      const metrics = await scrape();
      expect(metric(metrics, 'redis_cluster_failovers_total', 'data')).toBeGreaterThanOrEqual(1);
      expect(metric(metrics, 'redis_cluster_slots_assigned', 'data')).toBe(16384);

      // Every node restarts at once (same pods, same IPs): the cluster re-forms from nodes.conf and the AOF.
      const before = new Map<string, { ip: string; pid: number }>();
      for (const m of cr.status!.members!)
        before.set(m.pod!, { ip: m.ip!, pid: (await redisServer(m.pod!)).pid });
      for (const { pid } of before.values()) process.kill(pid, 'SIGKILL');
      await eventually(
        'every node to be restarted and the cluster ok again',
        async () => {
          for (const [pod, { ip, pid }] of before) {
            const now = await redisServer(pod).catch(() => undefined);
            if (!now || now.pid === pid) return false;
            const info = await clusterInfo(`${ip}:6379`, pw);
            if (info.cluster_state !== 'ok' || info.cluster_known_nodes !== '6') return false;
          }
          return true;
        },
        { timeoutMs: 90_000, intervalMs: 1000 },
      );
      cr = await formed('data', 6);
      await readAll('after restarting every node');

      // What happened is told as events: the bootstrap, both scalings, the failover.
      const reasons = await eventReasons('data');
      for (const reason of [
        'ClusterCreated',
        'ReplicasAttached',
        'ScaledOut',
        'SlotsMigrated',
        'NodeRemoved',
        'ScaledIn',
        'FailoverDetected',
      ])
        expect(reasons, `event ${reason}`).toContain(reason);
      const after = await scrape();
      expect(metric(after, 'redis_cluster_nodes_ready', 'data')).toBe(6);
      expect(metric(after, 'redis_cluster_slot_migrations_in_progress', 'data')).toBe(0);
      expect(metric(after, 'redis_cluster_state_ok', 'data')).toBe(1);
    } finally {
      client.close();
    }
  });

  it('finishes a slot migration left half-way, as after an operator killed mid-move', async () => {
    await api().create(redisCluster('resume', ns.name, { size: 3, replicasPerPrimary: 0 }));
    const cr = await formed('resume', 3);
    const pw = await password('resume');
    const client = new ClusterClient(addresses(cr), { password: pw });
    try {
      // 300 keys in one slot (hash tag), then a move of that slot stopped after MIGRATE of half of them.
      const keys = Array.from({ length: 300 }, (_, i) => `{resume}:${i}`);
      await Promise.all(keys.map((k) => client.set(k, k)));
      // A key that is not valid UTF-8 moves too.
      const binaryKey = Buffer.concat([Buffer.from('{resume}:'), Buffer.from([0xff, 0xfe, 0x00, 0x80])]);
      await client.command(['SET', binaryKey, 'binary']);
      const slot = keySlot(keys[0]!);
      const members = cr.status!.members!;
      const from = members.find((m) => m.role === 'primary' && slotsOf(m.slots).includes(slot))!;
      const to = members.find((m) => m.role === 'primary' && m.pod !== from.pod)!;
      const src = await RedisConnection.connect(`${from.ip}:6379`, { password: pw });
      const dst = await RedisConnection.connect(`${to.ip}:6379`, { password: pw });
      await dst.call('CLUSTER', 'SETSLOT', slot, 'IMPORTING', from.nodeId!);
      await src.call('CLUSTER', 'SETSLOT', slot, 'MIGRATING', to.nodeId!);
      const half = (await src.callBinary('CLUSTER', 'GETKEYSINSLOT', slot, 150)) as Buffer[];
      await src.call('MIGRATE', to.ip!, 6379, '', 0, 5000, 'AUTH', pw, 'KEYS', ...half);
      src.close();
      dst.close();

      await eventually(
        'the operator to finish the move',
        async () => {
          const c = await RedisConnection.connect(`${to.ip}:6379`, { password: pw });
          try {
            const self = parseClusterNodes(await c.text('CLUSTER', 'NODES')).find((n) => n.myself)!;
            return (
              self.slots.includes(slot) &&
              self.importing.size === 0 &&
              Number(await c.call('CLUSTER', 'COUNTKEYSINSLOT', slot)) === 301
            );
          } finally {
            c.close();
          }
        },
        { timeoutMs: 60_000, intervalMs: 500 },
      );
      await formed('resume', 3);
      const values = await Promise.all(keys.map((k) => client.get(k)));
      expect(values).toEqual(keys);
      expect(await client.command(['GET', binaryKey])).toBe('binary');
    } finally {
      client.close();
    }
  });

  it('re-forms a cluster on persistent volumes after every pod is deleted at once (new pod IPs)', async () => {
    await api().create(redisCluster('durable', ns.name, { size: 6, storage: { size: '64Mi' } }));
    let cr = await formed('durable', 6);
    const pw = await password('durable');
    const before = new Map(cr.status!.members!.map((m) => [m.pod, m]));
    const keys = Array.from({ length: 2000 }, (_, i) => `durable:${i}`);
    let client = new ClusterClient(addresses(cr), { password: pw });
    try {
      await Promise.all(keys.map((k) => client.set(k, k)));
      // Every node writes its AOF each second: wait for it before pulling the plug.
      await new Promise((r) => setTimeout(r, 1500));
    } finally {
      client.close();
    }
    const POD = { apiVersion: 'v1', kind: 'Pod' };
    const pods = await api().list<KubeObject>(POD, {
      namespace: ns.name,
      labelSelector: 'app.kubernetes.io/instance=durable',
    });
    await Promise.all(
      pods.items.map((p) => api().delete({ ...POD, name: p.metadata.name, namespace: ns.name })),
    );

    cr = await eventually(
      'the cluster to re-form on the new pod IPs',
      async () => {
        const now = await formed('durable', 6);
        return now.status!.members!.every((m) => m.ip !== before.get(m.pod)!.ip) ? now : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 1000 },
    );
    // The same nodes (IDs from nodes.conf on the claims), only their addresses changed.
    expect(new Set(cr.status!.members!.map((m) => m.nodeId))).toEqual(
      new Set([...before.values()].map((m) => m.nodeId)),
    );
    for (const address of addresses(cr))
      expect((await clusterInfo(address, pw)).cluster_known_nodes).toBe('6');
    client = new ClusterClient(addresses(cr), { password: pw });
    try {
      expect(await Promise.all(keys.map((k) => client.get(k)))).toEqual(keys);
    } finally {
      client.close();
    }
  });

  // Two rolling restarts of six pods, each waiting for its replica's sync: 131 and 172 s in two runs on two
  // cores, and past the file's 180 s beside another test run's kwok clusters.
  it('rolls the pods one at a time for a redis.conf change and a password rotation, keeping keys and clients', async () => {
    await api().create(redisCluster('roll', ns.name, { size: 6 }));
    let cr = await formed('roll', 6);
    const pw = await password('roll');
    const POD = { apiVersion: 'v1', kind: 'Pod' };
    type Pod = KubeObject & { status?: { conditions?: { type: string; status: string }[] } };
    const pods = async () =>
      (await api().list<Pod>(POD, { namespace: ns.name, labelSelector: 'app.kubernetes.io/instance=roll' }))
        .items;
    const uids = async () => new Set((await pods()).map((p) => p.metadata.uid));
    /** Samples the pods while a roll runs: the most that were missing or not ready at once. */
    const watchPods = () => {
      let running = true;
      let worst = 0;
      const loop = (async () => {
        while (running) {
          const list = await pods().catch(() => undefined);
          if (list) {
            const ready = list.filter(
              (p) =>
                !p.metadata.deletionTimestamp &&
                p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
            ).length;
            worst = Math.max(worst, 6 - ready);
          }
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      return {
        stop: async () => {
          running = false;
          await loop;
          return worst;
        },
      };
    };
    /** The roll is over when every pod is new and the cluster is formed again. */
    const rolled = (before: Set<string>) =>
      eventually(
        'every pod to be restarted and the cluster formed',
        async () => {
          const now = await uids();
          if ([...now].some((uid) => before.has(uid))) return undefined;
          return formed('roll', 6, 1000).catch(() => undefined);
        },
        { timeoutMs: 240_000, intervalMs: 1000 },
      );

    // A roll keeps every slot served: it must not report the cluster down or degraded on the way.
    const warningsBefore = await eventReasons('roll', 'Warning');
    let client = new ClusterClient(addresses(cr), { password: pw });
    const data = new KeySet(client, 'roll');
    try {
      await data.write();

      // redis.conf: a new setting reaches every node by a restart of each pod in turn.
      const started = Date.now();
      // Clients write and read throughout; a roll fails primaries over with CLUSTER FAILOVER, which waits for
      // the replica to catch up, so not even a write only the primary answered may be lost, nor any fail.
      let traffic = startLoad(client, 'load:roll');
      let pods$ = watchPods();
      let before = await uids();
      await api().patch(
        { ...REDIS_CLUSTER, name: 'roll', namespace: ns.name },
        { spec: { config: { 'maxmemory-policy': 'allkeys-lru' } } },
      );
      cr = await rolled(before);
      let served = await traffic.stop();
      console.info(describeLoad('rolling restart for redis.conf', served));
      expect(await pods$.stop(), 'pods down at once during the roll').toBeLessThanOrEqual(1);
      console.info(
        `redis rolling restart for redis.conf: ${((Date.now() - started) / 1000).toFixed(1)} s, ${served.writes} client writes`,
      );
      expect(served.lost, 'acknowledged writes lost in the roll').toEqual([]);
      expect(served.lostUnreplicated, 'writes answered OK lost in the roll').toEqual([]);
      expect(served.clientErrors, 'client operations that failed during the roll').toBe(0);
      expect(served.acknowledged).toBeGreaterThan(0);
      for (const address of addresses(cr)) {
        const c = await RedisConnection.connect(address, { password: pw });
        try {
          expect(await c.call('CONFIG', 'GET', 'maxmemory-policy')).toEqual([
            'maxmemory-policy',
            'allkeys-lru',
          ]);
        } finally {
          c.close();
        }
      }
      expect(await data.missing(), 'keys lost in the roll').toEqual([]);
      const reasons = await eventReasons('roll');
      expect(reasons).toContain('RollingRestart');
      expect(
        operator.logs.filter((l) => l.includes('takes over from primary')).length,
      ).toBeGreaterThanOrEqual(3);
      const metrics = await scrape();
      expect(metric(metrics, 'redis_cluster_pod_restarts_total', 'roll')).toBe(6);
      // Failovers the operator asked for are not counted as failures.
      expect(metric(metrics, 'redis_cluster_failovers_total', 'roll') ?? 0).toBe(0);

      // Password rotation: the new password in the Secret; every node takes it at once, then the pods roll.
      const rotationStarted = Date.now();
      const rotated = `rotated-${rotationStarted}`;
      before = await uids();
      await api().patch(
        { apiVersion: 'v1', kind: 'Secret', name: 'roll-auth', namespace: ns.name },
        { stringData: { password: rotated } },
      );
      // The pods roll right after the nodes take the password, so each attempt reads the members anew: a
      // restarted pod answers at its new address.
      cr = await eventually(
        'every node to accept the new password',
        async () => {
          const current = await get('roll');
          for (const address of addresses(current))
            (await RedisConnection.connect(address, { password: rotated })).close();
          return current;
        },
        { timeoutMs: 120_000, intervalMs: 200 },
      );
      client.close();
      client = new ClusterClient(addresses(cr), { password: rotated });
      traffic = startLoad(client, 'load:rotation');
      pods$ = watchPods();
      cr = await rolled(before);
      served = await traffic.stop();
      console.info(describeLoad('password rotation', served));
      expect(await pods$.stop(), 'pods down at once during the roll').toBeLessThanOrEqual(1);
      console.info(
        `redis password rotation: ${((Date.now() - rotationStarted) / 1000).toFixed(1)} s, ${served.writes} client writes`,
      );
      expect(served.lost, 'acknowledged writes lost in the rotation').toEqual([]);
      expect(served.lostUnreplicated, 'writes answered OK lost in the rotation').toEqual([]);
      expect(served.clientErrors, 'client operations that failed during the rotation').toBe(0);
      expect(served.acknowledged).toBeGreaterThan(0);
      for (const address of addresses(cr)) {
        await expect(RedisConnection.connect(address, { password: pw })).rejects.toThrow(/WRONGPASS/);
        (await RedisConnection.connect(address, { password: rotated })).close();
      }
      data.client = client;
      expect(await data.missing(), 'keys lost in the rotation').toEqual([]);
      // The operator keeps the previous password only while the rotation rolls out.
      const authConf = await api().get<Secret>(
        { apiVersion: 'v1', kind: 'Secret' },
        'roll-auth-conf',
        ns.name,
      );
      expect(Object.keys(authConf.data)).toEqual(['auth.conf']);
      expect(await eventReasons('roll')).toContain('PasswordChanged');
      expect(await eventReasons('roll', 'Warning'), 'Warning events during the rolls').toEqual(
        warningsBefore,
      );
      for (const line of operator.logs) expect(line).not.toContain(rotated);
    } finally {
      client.close();
    }
  }, 360_000);

  it('reports a primary lost with its data and no replica as Degraded/SlotsLost, quietly, and serves its slots again once the loss is accepted', async () => {
    await api().create(redisCluster('fragile', ns.name, { size: 3, replicasPerPrimary: 0 }));
    const cr = await formed('fragile', 3);
    const victim = cr.status!.members!.find((m) => m.pod === 'fragile-1')!;
    // On an emptyDir the pod comes back empty, under a new node ID; nobody can take over its slots.
    await api().delete({ apiVersion: 'v1', kind: 'Pod', name: 'fragile-1', namespace: ns.name });
    const degraded = await eventually(
      'the RedisCluster to report SlotsLost',
      async () => {
        const c = findStatusCondition((await get('fragile')).status?.conditions, 'Degraded');
        return c?.reason === 'SlotsLost' ? c : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 500 },
    );
    expect(degraded.status).toBe('True');
    expect(degraded.message).toContain(`${victim.slots} (node ${victim.nodeId})`);
    expect(degraded.message).toContain(`cache.example.com/accept-slot-loss=${victim.nodeId}`);
    // It waits for the user instead of asking Redis every second.
    const reconciles = async () =>
      (await scrape())
        .split('\n')
        .filter((l) => l.startsWith('controller_runtime_reconcile_total{'))
        .reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0);
    const before = await reconciles();
    await new Promise((r) => setTimeout(r, 10_000));
    expect((await reconciles()) - before).toBeLessThanOrEqual(2);

    await api().patch(
      { ...REDIS_CLUSTER, name: 'fragile', namespace: ns.name },
      { metadata: { annotations: { 'cache.example.com/accept-slot-loss': victim.nodeId } } },
    );
    const healed = await formed('fragile', 3);
    expect(healed.status?.clusterState).toBe('ok');
    expect(healed.status?.slotsAssigned).toBe(16384);
    expect(findStatusCondition(healed.status?.conditions, 'Degraded')?.status).toBe('False');
    expect(healed.status!.members!.find((m) => m.pod === 'fragile-1')?.slots).toBe(victim.slots);
  });

  it('reports a missing or malformed auth Secret as Degraded, naming the Secret and the key, and recovers', async () => {
    const SECRET = { apiVersion: 'v1', kind: 'Secret' };
    const condition = async (type: string) =>
      findStatusCondition((await get('creds')).status?.conditions, type);
    const degradedBy = (reason: string, text: RegExp) =>
      eventually(`Degraded=True with ${reason}`, async () => {
        const c = await condition('Degraded');
        return c?.status === 'True' && c.reason === reason && text.test(c.message) ? c : undefined;
      });
    await api().create(
      redisCluster('creds', ns.name, {
        size: 3,
        replicasPerPrimary: 0,
        auth: { secretName: 'creds-password' },
      }),
    );
    await degradedBy('AuthSecretNotFound', /Secret creds-password .*not found.*"password"/);
    expect((await condition('Available'))?.status).toBe('False');

    await api().create({
      ...SECRET,
      metadata: { name: 'creds-password', namespace: ns.name },
      stringData: { passwd: 'not-the-key' },
    });
    await degradedBy(
      'AuthSecretInvalid',
      /Secret creds-password in namespace \S+ has no key "password" \(keys: passwd\)/,
    );

    await api().patch(
      { ...SECRET, name: 'creds-password', namespace: ns.name },
      { stringData: { password: 'first-password' } },
    );
    let cr = await formed('creds', 3);
    expect(findStatusCondition(cr.status?.conditions, 'Degraded')?.status).toBe('False');
    expect((await clusterInfo(addresses(cr)[0]!, 'first-password')).cluster_state).toBe('ok');

    // Broken again while running: the cluster stays available on the password it has.
    await api().patch({ ...SECRET, name: 'creds-password', namespace: ns.name }, { data: { password: '' } });
    await degradedBy(
      'AuthSecretInvalid',
      /key "password" of Secret creds-password in namespace \S+ is empty/,
    );
    cr = await get('creds');
    expect(findStatusCondition(cr.status?.conditions, 'Available')?.status).toBe('True');
    expect((await clusterInfo(addresses(cr)[0]!, 'first-password')).cluster_state).toBe('ok');
    expect(await eventReasons('creds')).toContain('AuthSecretInvalid');

    await api().patch(
      { ...SECRET, name: 'creds-password', namespace: ns.name },
      { data: { password: Buffer.from('first-password').toString('base64') } },
    );
    await eventually('Degraded=False again', async () => (await condition('Degraded'))?.status === 'False');
  });
});
