// The project's APIs, one entry per kind; `nx g @opkit/nx:api` and `nx g @opkit/nx:webhook` rewrite this file.
import type { Manager } from '@opkit/controller-runtime';
import type { AnyKindWebhooks } from '@opkit/controller-runtime/webhook';
import type { ConfigApi } from '@opkit/controller-tools/manifests';
import { redisClusterCrd } from './redis-cluster-crd.js';
import { validateRedisCluster } from './v1/redis-cluster.js';

export { redisClusterCrd } from './redis-cluster-crd.js';
export * from './v1/redis-cluster.js';

/** Every kind's CRD, and the validators its samples are checked with. */
export const apis: readonly ConfigApi[] = [{ crd: redisClusterCrd, validateSample: validateRedisCluster }];

/** Every kind's webhooks: the manifests generate config/webhook from them. */
export const webhooks: readonly AnyKindWebhooks[] = [];

/** Registers every kind's webhooks on the manager's webhook server. */
export function setupWebhooks(_manager: Manager): void {}
