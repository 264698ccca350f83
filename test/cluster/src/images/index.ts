// The container images the test cluster's node runs, built from Debian packages and served by a local mirror.
export { type AccountFiles, accountFiles, type ImageUser, writeAccountFiles } from './accounts.js';
export {
  type BuiltImage,
  type EnsureImagesOptions,
  ensureClusterImages,
  imageCacheDir,
  pushClusterImages,
} from './cluster-images.js';
export { buildDebianRootfs, type DebianPackage, type DebianRootfsOptions } from './debian-rootfs.js';
export { canonicalJson, definitionKey, IMAGE_BUILDER_REVISION, type KeyInputs } from './definition-key.js';
export {
  clusterImageDefinitions,
  type ImageDefinition,
  type ImageFile,
  type ImageInputs,
  type OlmImageInputs,
  olmImageReferences,
  type PrometheusImageInputs,
  prometheusImageReferences,
  type TagKind,
  type VersionSource,
} from './definitions.js';
export { ImageBuildError, ImageToolMissingError } from './errors.js';
export { buildDefinitionImage, type DefinitionImage } from './image-build.js';
export {
  BASE_IMAGE_ANNOTATION,
  LOCAL_REGISTRY_HELP,
  LOCAL_REGISTRY_HOSTING,
  type LocalRegistryRecord,
  localRegistryHostingConfigMap,
  nodeBaseImage,
  recordLocalRegistry,
} from './local-registry-hosting.js';
export { localMirrorReference, mirrorRepository } from './mirror.js';
export { findNodeBinary, type NodeBinary } from './node-binary.js';
export { type ImageRegistry, type ImageRegistryOptions, startImageRegistry } from './registry.js';
