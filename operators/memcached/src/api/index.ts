// The project's APIs, one entry per kind; `nx g @opkit/nx:api` and `nx g @opkit/nx:webhook` rewrite this file.
import type { Manager } from '@opkit/controller-runtime';
import { type AnyKindWebhooks, registerWebhooks } from '@opkit/controller-runtime/webhook';
import type { ConfigApi } from '@opkit/controller-tools/manifests';
import { memcachedCrd } from './memcached-crd.js';
import * as v1alpha1 from './v1alpha1/memcached.js';
import { validateMemcached } from './v1beta1/memcached.js';
import { memcachedWebhooks } from './v1beta1/memcached-webhooks.js';

export { memcachedCrd } from './memcached-crd.js';
export * as v1alpha1 from './v1alpha1/memcached.js';
export * from './v1beta1/memcached.js';
export * from './v1beta1/memcached-webhooks.js';

/** Every kind's CRD, and the validators its samples are checked with. */
export const apis: readonly ConfigApi[] = [
  {
    crd: memcachedCrd,
    validateSample: validateMemcached,
    otherVersions: { v1alpha1: v1alpha1.validateMemcached },
  },
];

/** Every kind's webhooks: the manifests generate config/webhook from them. */
export const webhooks: readonly AnyKindWebhooks[] = [memcachedWebhooks];

/** Registers every kind's webhooks on the manager's webhook server. */
export function setupWebhooks(manager: Manager): void {
  registerWebhooks(manager, memcachedWebhooks);
}
