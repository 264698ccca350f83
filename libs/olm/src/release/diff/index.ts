// `diff`: what changed between two catalogs by meaning (packages, channels, upgrade edges, bundles with their
// properties, manifests and related images), as a typed structure, as `diff/…` findings, and rendered for people
// (text, markdown for a pull request) or programs (JSON, YAML).
export { diffFindings, type PackageChange, packageChanges } from './changes.js';
export { diffCatalogs } from './diff-catalogs.js';
export { diffCheck } from './diff-check.js';
export { CATALOG_DIFF_FORMATS, type CatalogDiffFormat, renderCatalogDiff } from './render.js';
export type {
  BundleDiff,
  BundleRef,
  CatalogDiff,
  ChannelDiff,
  EdgeChange,
  ObjectRef,
  PackageDiff,
  PropertyChange,
  RelatedImageRef,
  SkipRangeChange,
  ValueChange,
} from './types.js';
