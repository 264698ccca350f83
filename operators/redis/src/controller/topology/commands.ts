// Commands and readings on one node that several phases share.

import { ReplyError, type RespValue } from '../../redis/resp.js';
import type { Observed } from './types.js';

/** Runs `CLUSTER …` and ignores the listed error replies (already done). */
export async function clusterCall(
  node: Observed,
  args: (string | number)[],
  ignore: RegExp[] = [],
): Promise<void> {
  const reply = await node.connection.send('CLUSTER', ...args);
  if (reply instanceof ReplyError && !ignore.some((r) => r.test(reply.reply))) throw reply;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** CLUSTER FAILOVER on a replica; waits up to 10 s for it to report itself primary. */
export async function failover(replica: Observed): Promise<boolean> {
  await clusterCall(replica, ['FAILOVER']);
  for (let i = 0; i < 100; i++) {
    const role = (await replica.connection.call('ROLE')) as RespValue[];
    if (role[0] === 'master') return true;
    await sleep(100);
  }
  return false;
}

/** A replica linked to its primary and not in a full sync. */
export function inSync(replica: Observed): boolean {
  return (
    replica.replication.master_link_status === 'up' && replica.replication.master_sync_in_progress === '0'
  );
}

/** The members that replicate `primary`. */
export function followers(members: readonly Observed[], primary: Observed): Observed[] {
  return members.filter((m) => m.self.primaryId === primary.self.id);
}

/** Errors of a node that is up but not serving for a moment: CLUSTERDOWN, TRYAGAIN, LOADING (also via MIGRATE). */
export function clusterBusy(error: unknown): boolean {
  return error instanceof ReplyError && /(^|: )(CLUSTERDOWN|TRYAGAIN|LOADING)\b/.test(error.reply);
}
