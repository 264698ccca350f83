// operator-sdk's and opm's bundle validators, with their messages: format, CSV, CRDs, deprecated APIs,
// OperatorHub and good practices, and `bundle validate`'s output.
export * from './bundle.js';
export * from './bundle-format.js';
export * from './crd.js';
export * from './csv.js';
export * from './deprecated-apis.js';
export * from './good-practices.js';
// The platforms an image inspector reports, as `validateBundleDirReadingImages`'s options name them.
export type { ImageInspection, ImageInspector, ImageOsArch } from './multiarch.js';
export * from './object.js';
export * from './operatorhub.js';
export * from './optional-validators.js';
export * from './output.js';
export * from './result.js';
export * from './upgrade-edges.js';
export * from './validate-bundle-dir.js';
