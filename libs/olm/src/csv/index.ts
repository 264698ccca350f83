export * from './base.js';
export * from './errors.js';
export * from './generate.js';
export * from './owned-crds.js';
export * from './permissions.js';
export * from './related-images.js';
export * from './types.js';
export * from './webhooks.js';
