// registry+v1 bundles as operator-sdk and opm handle them: reading a bundle directory (with the reader limits),
// writing one, its annotations, and rendering it to the `olm.bundle` blob `opm render` prints.
export * from './annotations.js';
export { BundleDirectory, type BundleEntry, type FirstDocument } from './bundle-directory.js';
export { BundleFileRefusedError, BundleFileTooLargeError, MAX_BUNDLE_FILE_BYTES } from './bundle-file.js';
export * from './catalog-bundle.js';
export * from './errors.js';
export * from './file-names.js';
export * from './load.js';
export {
  type BundleProperty,
  formatOlmBundleJson,
  type OlmBundleBlob,
  type RenderBundleOptions,
  type RenderedRelatedImage,
  renderBundle,
  renderLoadedBundle,
} from './render.js';
export * from './supported-kinds.js';
export * from './write.js';
export { readYamlStream } from './yaml.js';
