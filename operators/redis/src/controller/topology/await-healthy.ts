// Phase 9: the shape is in place once every node says cluster_state:ok and each primary has its replicas.

import { SLOTS } from '../../redis/cluster.js';
import { primariesShortOfReplicas, type ReplicaLayout } from './attach-replicas.js';
import type { ShapedContext } from './context.js';
import type { SyncResult } from './types.js';

export function awaitHealthy(ctx: ShapedContext, layout: ReplicaLayout): SyncResult | undefined {
  const notOk = ctx.members.filter((m) => m.info.cluster_state !== 'ok');
  const short = primariesShortOfReplicas(ctx, layout);
  if (notOk.length > 0) {
    return ctx.report(
      'Settling',
      `waiting for cluster_state:ok on ${notOk.map((m) => m.pod.name).join(', ')}`,
    );
  }
  if (short.length > 0) {
    return ctx.report(
      'Degraded',
      `${short.length} primary(ies) lack replicas and no node is free to follow them`,
      {
        ready: false,
      },
    );
  }
  return undefined;
}

/** Nothing left to do: the desired shape serves every slot. */
export function reportReady(ctx: ShapedContext, layout: ReplicaLayout): SyncResult {
  const { targets } = ctx;
  return ctx.report(
    'Ready',
    `${targets.length} primaries with ${targets.map(layout.replicaTarget).join('/')} replica(s) serve all ${SLOTS} slots`,
    {
      ready: true,
    },
  );
}
