export { memcachedCrd } from './crd.js';
export * as v1alpha1 from './v1alpha1/index.js';
export * from './v1beta1/index.js';
export { memcachedWebhooks } from './webhooks.js';
