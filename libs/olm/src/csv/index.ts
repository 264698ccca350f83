// Generating a ClusterServiceVersion from kustomize output and a base CSV, as operator-sdk does: install modes,
// permissions, owned CRDs, webhooks and related images.
export * from './base.js';
export * from './errors.js';
export * from './generate.js';
export * from './install-mode.js';
export * from './kustomize-base.js';
export { managerImages } from './operator-objects.js';
export * from './owned-crds.js';
export * from './permissions.js';
export * from './platforms.js';
export * from './related-images.js';
export * from './webhooks.js';
