export {
  type AppendLayersOptions,
  appendLayers,
  BASE_DIGEST_ANNOTATION,
  BASE_NAME_ANNOTATION,
} from './append-layers.js';
export { type AuthChallenge, type Credentials, parseWwwAuthenticate } from './auth.js';
export {
  BUNDLE_PACKAGE_LABEL,
  bundleImage,
  bundleImageFromFiles,
  type OlmImageOptions,
} from './bundle-image.js';
export {
  CATALOG_CONFIGS_DIR,
  CATALOG_CONFIGS_LABEL,
  type CatalogImageOptions,
  catalogImage,
} from './catalog-image.js';
export { isDigest, sha256Digest } from './digest.js';
export {
  DOCKER_HUB_AUTH_KEY,
  type DockerCredentialOptions,
  dockerCredentials,
  loginFilePaths,
} from './docker-config.js';
export {
  AuthFailedError,
  CredentialsError,
  DigestMismatchError,
  InputInvalidError,
  LayerInvalidError,
  LayoutInvalidError,
  LengthMismatchError,
  ManifestInvalidError,
  NotFoundError,
  OciError,
  type OciErrorCode,
  ReferenceInvalidError,
  RegistryError,
  RegistryUnreachableError,
} from './errors.js';
export {
  assembleImage,
  type Blob,
  buildImage,
  type Descriptor,
  type HistoryEntry,
  type ImageConfig,
  type ImageIndex,
  type ImageManifest,
  type ImageOptions,
  imageLabels,
  MediaType,
  type OciImage,
  type Platform,
  parseImageConfig,
  parseIndex,
  parseManifest,
} from './image.js';
export {
  assembleImageIndex,
  buildImageIndex,
  formatPlatform,
  type ImageIndexOptions,
  type ImagePlatforms,
  imagePlatform,
  imagePlatforms,
  isImageIndex,
  type OciImageIndex,
  type PlatformDocuments,
  type PlatformImage,
  parsePlatform,
  type ReadIndexOptions,
} from './image-index.js';
export {
  formatImageSource,
  type ImageSource,
  type LoadImageSourceOptions,
  loadImageSource,
  parseImageSource,
  readImageSourcePlatforms,
} from './image-source.js';
export {
  type DirectoryLayerOptions,
  type DirectoryReadOptions,
  LAYER_MEDIA_TYPE,
  type Layer,
  type LayerEntry,
  type LayerOptions,
  layerFromDirectory,
  layerFromEntries,
  readDirectoryEntries,
  sourceDateEpoch,
} from './layer.js';
export {
  type LayoutEntry,
  type LayoutImage,
  type LayoutLayer,
  openLayoutImage,
  REF_NAME_ANNOTATION,
  readLayout,
  readLayoutEntry,
  readLayoutIndex,
  readLayoutPlatforms,
  writeLayout,
} from './layout.js';
// The writers of bundles and catalogs use the rule through `@opkit/oci/output-directory`; callers name guards.
export {
  type NamedPath,
  OutputDirectoryError,
  type OutputDirectoryErrorCode,
  type OutputGuard,
} from './output-directory.js';
export { bypassesProxy, type ProxySettings, proxyFor, proxyFromEnvironment } from './proxy.js';
export { redact } from './redact.js';
export { formatReference, type ImageReference, parseReference } from './reference.js';
export { namesRegistryHost, normalizedReferenceProblem, splitTrailingTag } from './reference-grammar.js';
export {
  type ProgressEvent,
  type PullAllOptions,
  type PulledToLayout,
  type PullOptions,
  type PullToLayoutOptions,
  type PushOptions,
  type PushResult,
  RegistryClient,
  type RegistryClientOptions,
  type UploadMode,
} from './registry-client.js';
