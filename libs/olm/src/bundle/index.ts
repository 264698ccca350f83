export * from './annotations.js';
export { BundleFileTooLargeError, MAX_BUNDLE_FILE_BYTES } from './bundle-file.js';
export * from './catalog-bundle.js';
export * from './errors.js';
export * from './file-names.js';
export * from './load.js';
export * from './render.js';
export * from './supported-kinds.js';
export * from './write.js';
