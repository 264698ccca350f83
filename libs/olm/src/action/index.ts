// Actions: what the `opkit` commands do, as functions — generate and build bundles, render catalogs and
// bundles, build a catalog from templates, check a release against its one source (the operator's
// package.json `opkit` record). Each takes typed options and returns a typed result; none prints: progress
// goes to an optional callback and failures are `ActionError`s with a code and one line. The CLI's commands
// parse flags and call these; tests and programs of one's own can call them without the CLI. Each action is
// also its own subpath (`@opkit/olm/action/render`, …), so a caller loads only the one it runs.
export {
  type BuildBundlesOptions,
  type BuiltBundleImage,
  buildBundles,
  type PushBundleImagesOptions,
  type PushedBundleImage,
  pushBundleImages,
} from './build-bundles.js';
export {
  type BuildCatalogOptions,
  type BuiltCatalog,
  type BundleImages,
  buildCatalog,
  type CatalogBuildResult,
  catalogBuildResult,
} from './build-catalog.js';
export { type UnpackedCatalog, unpackCatalogImage } from './catalog-image.js';
export { ActionError } from './errors.js';
export {
  type BundlePlatforms,
  type GenerateBundleOptions,
  generateBundle,
  renderOperatorManifests,
} from './generate-bundle.js';
export {
  generateKustomizeManifests,
  type KustomizeManifestsOptions,
  type KustomizeManifestsResult,
} from './generate-kustomize-manifests.js';
export {
  type ImagePlatformSources,
  inspectImagePlatforms,
  readImagePlatforms,
} from './image-platforms.js';
export { checkImageReference } from './image-reference.js';
export { type UnpackLimits, type UnpackOptions, unpackImageLayers } from './image-unpack.js';
export { runKubectl, runKustomize } from './kubectl.js';
export { type OperatorRelease, readOperatorRelease, readOperatorReleases } from './operator-release.js';
export type { Progress } from './progress.js';
export { withPulledImage } from './pulled-image.js';
export { bundleDisagreements, type RenderedTemplate, releaseDisagreements } from './release-identity.js';
export {
  migrateSource,
  type RenderImageOptions,
  type RenderSourceOptions,
  renderBundleImage,
  renderSources,
  renderSourcesDocuments,
} from './render.js';
