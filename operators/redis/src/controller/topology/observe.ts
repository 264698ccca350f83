// Reaching each Redis node and reading its own account of the cluster, before any phase decides anything.

import { parseClusterNodes, parseInfo } from '../../redis/cluster.js';
import { RedisConnection, ReplyError } from '../../redis/resp.js';
import { REDIS_PORT } from '../resources.js';
import type { Observed, PodInfo } from './types.js';

const addressOf = (ip: string) => `${ip}:${REDIS_PORT}`;

const connectTo = (ip: string, password: string) =>
  RedisConnection.connect(addressOf(ip), { password, connectTimeoutMs: 2000, commandTimeoutMs: 10_000 });

const wrongPassword = (error: unknown) =>
  error instanceof ReplyError && (error.kind === 'WRONGPASS' || /invalid password/i.test(error.reply));

/** CLUSTER NODES, CLUSTER INFO, INFO replication and DBSIZE of a ready pod; undefined when it does not answer. */
export async function observe(
  pod: PodInfo,
  password: string,
  previous?: string,
): Promise<Observed | undefined> {
  if (!pod.ip || !pod.ready) return undefined;
  let connection: RedisConnection;
  let previousPassword = false;
  try {
    connection = await connectTo(pod.ip, password);
  } catch (error) {
    if (previous === undefined || !wrongPassword(error)) return undefined;
    try {
      connection = await connectTo(pod.ip, previous);
      previousPassword = true;
    } catch {
      return undefined;
    }
  }
  try {
    const [nodes, info, replication, keys] = await Promise.all([
      connection.text('CLUSTER', 'NODES'),
      connection.text('CLUSTER', 'INFO'),
      connection.text('INFO', 'replication'),
      connection.call('DBSIZE'),
    ]);
    const view = parseClusterNodes(nodes);
    const self = view.find((n) => n.myself);
    if (!self) throw new Error('CLUSTER NODES without myself');
    return {
      pod,
      ip: pod.ip,
      connection,
      view,
      self,
      info: parseInfo(info),
      replication: parseInfo(replication),
      keys: Number(keys),
      previousPassword,
    };
  } catch {
    connection.close();
    return undefined;
  }
}

/**
 * Password rotation: nodes still on the previous password take the current one at once, for clients
 * (requirepass) and for replication (masterauth), so the cluster never runs with two passwords for longer
 * than one pass. Connections already authenticated stay so; the pods are restarted with the new auth.conf
 * afterwards by the rolling restart. Returns how many nodes were switched.
 */
export async function switchPassword(observed: readonly Observed[], password: string): Promise<number> {
  const stale = observed.filter((o) => o.previousPassword);
  await Promise.all(
    stale.map((o) => o.connection.call('CONFIG', 'SET', 'masterauth', password, 'requirepass', password)),
  );
  return stale.length;
}
