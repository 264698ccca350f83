// What one reconcile of a RedisCluster works with: the reconciler's collaborators and the object at hand.

import type { EventRecorder, Logger, ObjectClient, Stored } from '@opkit/controller-runtime';
import { namespaceOf } from '@opkit/controller-runtime/controllerutil';
import type { RedisCluster } from '../../api/v1/redis-cluster.js';
import { names } from '../resources.js';
import type { ClusterMetrics } from './metrics.js';

export interface ReconcilerDeps {
  readonly client: ObjectClient;
  readonly events: EventRecorder;
  readonly metrics: ClusterMetrics;
  /** The operator's environment (for RELATED_IMAGE_REDIS). */
  readonly env: NodeJS.ProcessEnv;
  readonly logger?: Logger;
}

/** One reconcile of one RedisCluster. */
export interface ClusterPass extends ReconcilerDeps {
  readonly cr: Stored<RedisCluster>;
  readonly namespace: string;
  readonly generation: number | undefined;
  /** The metric labels, also put on every log line. */
  readonly labels: { readonly namespace: string; readonly name: string };
  readonly names: ReturnType<typeof names>;
}

export function startPass(deps: ReconcilerDeps, cr: Stored<RedisCluster>): ClusterPass {
  const namespace = namespaceOf(cr);
  return {
    ...deps,
    cr,
    namespace,
    generation: cr.metadata.generation,
    labels: { namespace, name: cr.metadata.name },
    names: names(cr),
  };
}
