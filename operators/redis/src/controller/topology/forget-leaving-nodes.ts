// Phase 8: scale-in: leaving nodes serve nothing now and nobody follows them; every member forgets them.

import { clusterCall } from './commands.js';
import type { ShapedContext } from './context.js';
import type { SyncResult } from './types.js';

export async function forgetLeavingNodes(ctx: ShapedContext): Promise<SyncResult | undefined> {
  const { leaving, members } = ctx;
  const blocking = leaving.filter((l) => members.some((m) => m.self.primaryId === l.self.id));
  if (blocking.length > 0 || leaving.length === 0) return undefined;
  for (const l of leaving) {
    for (const m of members) await clusterCall(m, ['FORGET', l.self.id], [/Unknown node/i]);
    ctx.log('forgot leaving node', { pod: l.pod.name, nodeId: l.self.id });
  }
  ctx.actions.push({
    reason: 'NodeRemoved',
    message: `${leaving.map((l) => l.pod.name).join(', ')} removed from the cluster`,
  });
  return ctx.report('Forgetting', `removed ${leaving.length} node(s) from the cluster`);
}
