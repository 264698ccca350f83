// The contexts phases past the first take, built from a fake cluster the way a pass builds them.

import { choosePrimaries } from '../choose-primaries.js';
import type { ReachableContext, ShapedContext } from '../context.js';
import type { SyncInput } from '../types.js';
import { reachable } from '../wait-for-members.js';
import type { FakeCluster } from './fake-cluster.js';

export type Shape = Omit<SyncInput, 'pods' | 'password'> & { password?: string };

export function reachableContext(cluster: FakeCluster, shape: Shape): ReachableContext {
  const ctx = reachable(cluster.context(shape));
  if (!ctx) throw new Error('some member of the fake cluster does not answer');
  return ctx;
}

export function shapedContext(cluster: FakeCluster, shape: Shape): ShapedContext {
  const ctx = reachableContext(cluster, shape);
  return { ...ctx, targets: choosePrimaries(ctx) };
}
