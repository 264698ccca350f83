import type { KindWebhooks } from '@opkit/controller-runtime';
import { v1alpha1Spoke } from './v1alpha1/index.js';
import {
  MEMCACHED,
  type Memcached,
  memcachedDefaulter,
  memcachedValidator,
  PLURAL,
  validateMemcached,
} from './v1beta1/index.js';

/**
 * The Memcached webhooks: defaulting and validating at v1beta1, and conversion between v1alpha1 and v1beta1
 * (the hub), without which the API server cannot serve v1alpha1. The operator registers this declaration and
 * `nx run memcached:manifests` generates `config/webhook` and the CRD's conversion patch from it.
 */
export const memcachedWebhooks: KindWebhooks<Memcached> = {
  type: MEMCACHED,
  plural: PLURAL,
  schema: validateMemcached,
  defaulter: memcachedDefaulter,
  validator: memcachedValidator,
  conversion: { hub: 'v1beta1', spokes: { v1alpha1: v1alpha1Spoke } },
};
