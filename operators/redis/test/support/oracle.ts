import { findStatusCondition } from '@opkit/controller-runtime';
import { type LiveObject, type Oracle, resourceListDifferences } from '@opkit/test-cluster/state-testing';
import {
  parseClusterNodes,
  parseInfo,
  type RedisClusterSpec,
  type RedisClusterStatus,
} from '../../src/index.js';
import { RedisConnection } from '../../src/redis/resp.js';
import { REDIS_IMAGE } from './operator.js';

// The judgement of a RedisCluster's operands and status, worked out from the spec alone (not from the
// operator's code): the StatefulSet, what every pod runs, and the cluster the Redis nodes themselves report.

/** redis.conf settings the state test changes, with Redis's own defaults (what a removed setting goes back to). */
export const CONFIG_DEFAULTS: Readonly<Record<string, string>> = {
  'maxmemory-policy': 'noeviction',
  hz: '10',
  timeout: '0',
  'slowlog-log-slower-than': '10000',
};

interface Container {
  name: string;
  image: string;
  resources?: { limits?: Record<string, string>; requests?: Record<string, string> };
}
interface StatefulSet {
  spec: { replicas: number; template: { spec: { containers: Container[] } } };
  status?: { updateRevision?: string };
}
interface Pod {
  metadata: { name: string; labels?: Record<string, string>; deletionTimestamp?: string };
  spec: { containers: Container[] };
  status?: { podIP?: string };
}
interface Secret {
  data?: Record<string, string>;
}

/** The split the API documents: at least 3 primaries, as few as keep each at most `replicasPerPrimary` replicas. */
export function expectedShape(spec: RedisClusterSpec): { primaries: number; replicaCounts: number[] } {
  const perPrimary = spec.replicasPerPrimary ?? 1;
  const primaries = Math.min(spec.size, Math.max(3, Math.ceil(spec.size / (perPrimary + 1))));
  const followers = spec.size - primaries;
  const replicaCounts = Array.from(
    { length: primaries },
    (_, i) => Math.floor(followers / primaries) + (i < followers % primaries ? 1 : 0),
  );
  return { primaries, replicaCounts: replicaCounts.sort() };
}

/** Asks one Redis node, with the cluster's password. */
async function ask<T>(ip: string, password: string, what: (c: RedisConnection) => Promise<T>): Promise<T> {
  const connection = await RedisConnection.connect(`${ip}:6379`, { password });
  try {
    return await what(connection);
  } finally {
    connection.close();
  }
}

/**
 * The operands as the spec says: a StatefulSet of `size` pods with the spec's image and resources, every pod
 * on its current template, every Redis node running the spec's settings, and one healthy cluster of
 * `size` nodes with the documented number of primaries, each serving slots and keeping its share of replicas.
 */
export const clusterMatches: Oracle<RedisClusterSpec, RedisClusterStatus> = async ({
  spec,
  object,
  rest,
  namespace,
}) => {
  const name = object.metadata.name;
  const problems: string[] = [];
  const sts = await rest.request<StatefulSet>(
    'GET',
    `/apis/apps/v1/namespaces/${namespace}/statefulsets/${name}`,
  );
  const container = sts.spec.template.spec.containers.find((c) => c.name === 'redis');
  if (sts.spec.replicas !== spec.size)
    problems.push(`StatefulSet replicas ${sts.spec.replicas}, the spec says ${spec.size}`);
  if (container?.image !== (spec.image ?? REDIS_IMAGE))
    problems.push(`image ${container?.image}, the spec says ${spec.image ?? REDIS_IMAGE}`);
  problems.push(
    ...resourceListDifferences('limits', container?.resources?.limits, spec.resources?.limits),
    ...resourceListDifferences('requests', container?.resources?.requests, spec.resources?.requests),
  );
  if (problems.length > 0) return problems;

  const pods: Pod[] = [];
  for (let i = 0; i < spec.size; i++) {
    const pod = await rest
      .request<Pod>('GET', `/api/v1/namespaces/${namespace}/pods/${name}-${i}`)
      .catch(() => undefined);
    if (!pod?.status?.podIP || pod.metadata.deletionTimestamp) return [`pod ${name}-${i} is not running`];
    if (pod.metadata.labels?.['controller-revision-hash'] !== sts.status?.updateRevision)
      return [`pod ${name}-${i} runs an older template than the StatefulSet's`];
    pods.push(pod);
  }
  const secretName = spec.auth?.secretName ?? `${name}-auth`;
  const secret = await rest.request<Secret>('GET', `/api/v1/namespaces/${namespace}/secrets/${secretName}`);
  const password = Buffer.from(secret.data?.password ?? '', 'base64').toString('utf8');

  for (const pod of pods) {
    const ip = pod.status?.podIP ?? '';
    const [info, settings] = await ask(
      ip,
      password,
      async (c) =>
        [
          parseInfo(await c.text('CLUSTER', 'INFO')),
          await Promise.all(
            Object.keys(CONFIG_DEFAULTS).map(
              async (key) => [key, await c.call('CONFIG', 'GET', key)] as const,
            ),
          ),
        ] as const,
    );
    if (info.cluster_state !== 'ok')
      problems.push(`${pod.metadata.name}: cluster_state ${info.cluster_state}`);
    if (info.cluster_known_nodes !== String(spec.size))
      problems.push(
        `${pod.metadata.name} knows ${info.cluster_known_nodes} nodes, the spec says ${spec.size}`,
      );
    if (info.cluster_slots_assigned !== '16384')
      problems.push(`${pod.metadata.name}: ${info.cluster_slots_assigned} slots assigned, not 16384`);
    for (const [key, answer] of settings) {
      const expected = spec.config?.[key] ?? CONFIG_DEFAULTS[key];
      // CONFIG GET answers [name, value].
      const running = Array.isArray(answer) ? String(answer[1]) : undefined;
      if (running !== expected)
        problems.push(`${pod.metadata.name} runs ${key} ${running}, the spec says ${expected}`);
    }
  }
  if (problems.length > 0) return problems;

  const nodes = parseClusterNodes(
    await ask(pods[0]?.status?.podIP ?? '', password, (c) => c.text('CLUSTER', 'NODES')),
  );
  const primaries = nodes.filter((n) => n.role === 'primary' && n.slots.length > 0);
  const shape = expectedShape(spec);
  if (primaries.length !== shape.primaries)
    problems.push(`${primaries.length} primaries serve slots, the spec says ${shape.primaries}`);
  const replicaCounts = primaries
    .map((p) => nodes.filter((n) => n.role === 'replica' && n.primaryId === p.id).length)
    .sort();
  if (JSON.stringify(replicaCounts) !== JSON.stringify(shape.replicaCounts))
    problems.push(
      `replicas per primary ${replicaCounts.join(',')}, the spec says ${shape.replicaCounts.join(',')}`,
    );
  const idle = nodes.filter((n) => n.role === 'primary' && n.slots.length === 0);
  if (idle.length > 0) problems.push(`${idle.length} primaries without slots or replicas' place`);
  return problems;
};

/** Whether the status says the generation's work is done: observed, every node ready, Available, not Progressing. */
export function clusterReady(
  status: RedisClusterStatus | undefined,
  generation: number,
  object: LiveObject<RedisClusterSpec, RedisClusterStatus>,
): boolean {
  return (
    status?.observedGeneration === generation &&
    status.readyNodes === object.spec.size &&
    findStatusCondition(status.conditions, 'Available')?.status === 'True' &&
    findStatusCondition(status.conditions, 'Progressing')?.status === 'False'
  );
}
