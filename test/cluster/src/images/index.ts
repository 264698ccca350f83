// The container images the test cluster's node runs, built from Debian packages and served by a local mirror:
// the Node.js base and the operands for every platform of IMAGE_ARCHITECTURES, the rest for the machine's own.
export { type AccountFiles, accountFiles, type ImageUser, writeAccountFiles } from './accounts.js';
export {
  type BuiltImage,
  type EnsureImagesOptions,
  ensureClusterImages,
  imageCacheDir,
  type PlatformImage,
  pushClusterImages,
} from './cluster-images.js';
export { buildDebianRootfs, type DebianPackage, type DebianRootfsOptions } from './debian-rootfs.js';
export { canonicalJson, definitionKey, IMAGE_BUILDER_REVISION, type KeyInputs } from './definition-key.js';
export {
  clusterImageDefinitions,
  definitionArchitectures,
  definitionForArchitecture,
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
export {
  findNodeBinaries,
  foreignNodeBinary,
  type NodeBinaries,
  nodePlatformPackage,
} from './node-package.js';
export {
  ARCHITECTURES,
  type ArchitectureNames,
  elfMachine,
  hostArchitecture,
  IMAGE_ARCHITECTURES,
  type ImageArchitecture,
} from './platforms.js';
export { type ImageRegistry, type ImageRegistryOptions, startImageRegistry } from './registry.js';
