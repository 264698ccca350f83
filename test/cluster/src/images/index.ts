// The container images the test cluster's node runs, built from Debian packages and served by a local mirror:
// the Node.js base and the operands for every platform of IMAGE_ARCHITECTURES, the rest for the machine's own.
// The subpath exports what specs outside this package use (building the images for another platform and
// checking them) with the types of those functions; the rest stays inside the package.
export {
  type BuiltImage,
  type EnsureImagesOptions,
  ensureClusterImages,
  type PlatformImage,
} from './cluster-images.js';
export {
  clusterImageDefinitions,
  type ImageDefinition,
  type ImageFile,
  type ImageInputs,
} from './definitions.js';
export type { NodeBinary } from './node-binary.js';
export { findNodeBinaries, type NodeBinaries } from './node-package.js';
export {
  ARCHITECTURES,
  type ArchitectureNames,
  elfMachine,
  IMAGE_ARCHITECTURES,
  type ImageArchitecture,
} from './platforms.js';
