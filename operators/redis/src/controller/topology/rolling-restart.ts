// Phase 10: rolling restart: pods started from an older template (redis.conf, password, image …) restart one
// at a time, replicas first. A primary first hands its slots to an in-sync replica (CLUSTER FAILOVER, which
// waits for the replica to catch up), so clients see MOVED and no write is lost; it then restarts as a
// replica. Only from a healthy cluster: each step waits for the previous restart to have synced.

import { failover, followers, inSync } from './commands.js';
import type { ShapedContext } from './context.js';
import type { Observed, SyncResult } from './types.js';

export async function rollingRestart(ctx: ShapedContext): Promise<SyncResult | undefined> {
  const { input, members } = ctx;
  if (input.revisionKnown === false) {
    return ctx.report(
      'RollingRestart',
      'waiting for the StatefulSet controller to record the current revision',
    );
  }
  const outdated = members.filter((m) => m.pod.outdated);
  if (outdated.length === 0) return undefined;
  const togo = `${outdated.length} of ${members.length} pod(s) to restart`;
  const syncing = members.filter((m) => m.self.role === 'replica' && !inSync(m));
  if (syncing.length > 0) {
    return ctx.report(
      'RollingRestart',
      `${togo}; waiting for ${syncing.map((m) => m.pod.name).join(', ')} to sync`,
    );
  }
  const restart = (o: Observed) =>
    ctx.report('RollingRestart', `${togo}; restarting ${o.self.role} ${o.pod.name}`, {
      restartPod: {
        name: o.pod.name,
        uid: o.pod.uid,
        role: o.self.role,
        first: outdated.length === members.length,
      },
    });
  const replica = outdated.find((m) => m.self.role === 'replica');
  if (replica) return restart(replica);
  const primary = outdated[0]!;
  const heir = followers(members, primary).find(inSync);
  if (heir) {
    const promoted = await failover(heir);
    ctx.actions.push({
      reason: 'FailoverRequested',
      message: `${heir.pod.name} takes over from primary ${primary.pod.name} before its restart`,
    });
    ctx.log('requested failover', { pod: heir.pod.name, primary: primary.pod.name, promoted });
    return ctx.report(
      'RollingRestart',
      `${togo}; ${heir.pod.name} ${promoted ? 'took' : 'is taking'} over from ${primary.pod.name}`,
      { promoted: [heir.self.id] },
    );
  }
  if (!input.persistent) {
    return ctx.report(
      'RestartBlocked',
      `${outdated.map((m) => m.pod.name).join(', ')} run an outdated configuration, but restarting a primary ` +
        'without a replica on an emptyDir would lose its keys: delete the pod to apply it',
    );
  }
  return restart(primary);
}
