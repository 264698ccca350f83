/** Severity of a catalog validation finding. `error`s are what `opm validate` rejects. */
export type ValidationLevel = 'error' | 'warning';

/**
 * Where a finding comes from: `load` (file decoding, `declcfg.LoadFS`), `convert` (`declcfg.ConvertToModel`,
 * where opm stops at the first problem), `model` (`model.Validate`, printed by opm as a tree) or `lint` (opkit's
 * own warnings, which opm does not have).
 */
export type ValidationStage = 'load' | 'convert' | 'model' | 'lint';

/** Stable codes of validation findings. */
export type ValidationCode =
  | 'LOAD_FAILED'
  | 'PACKAGE_NAME_MISSING'
  | 'PACKAGE_DUPLICATE'
  | 'PACKAGE_NAME_INVALID'
  | 'CHANNEL_UNKNOWN_PACKAGE'
  | 'CHANNEL_NAME_MISSING'
  | 'CHANNEL_DUPLICATE'
  | 'CHANNEL_ENTRY_DUPLICATE'
  | 'CHANNEL_ENTRY_WITHOUT_BUNDLE'
  | 'BUNDLE_PACKAGE_MISSING'
  | 'BUNDLE_UNKNOWN_PACKAGE'
  | 'BUNDLE_DUPLICATE'
  | 'BUNDLE_PROPERTIES_INVALID'
  | 'BUNDLE_PACKAGE_PROPERTY_COUNT'
  | 'BUNDLE_PACKAGE_PROPERTY_MISMATCH'
  | 'BUNDLE_IMAGE_INVALID'
  | 'BUNDLE_RELATED_IMAGE_INVALID'
  | 'BUNDLE_VERSION_INVALID'
  | 'BUNDLE_RELEASE_INVALID'
  | 'BUNDLE_NOT_IN_CHANNEL'
  | 'DEPRECATION_PACKAGE_MISSING'
  | 'DEPRECATION_UNKNOWN_PACKAGE'
  | 'DEPRECATION_DUPLICATE'
  | 'DEPRECATION_SCHEMA_MISSING'
  | 'DEPRECATION_ENTRY_DUPLICATE'
  | 'DEPRECATION_UNKNOWN_BUNDLE'
  | 'DEPRECATION_UNKNOWN_CHANNEL'
  | 'DEPRECATION_PACKAGE_NAME_SET'
  | 'DEPRECATION_UNKNOWN_SCHEMA'
  | 'DEFAULT_CHANNEL_MISSING'
  | 'DEFAULT_CHANNEL_NOT_FOUND'
  | 'PACKAGE_NO_CHANNELS'
  | 'DUPLICATE_VERSIONS'
  | 'DEPRECATION_MESSAGE_MISSING'
  | 'CHANNEL_EMPTY'
  | 'CHANNEL_NO_HEAD'
  | 'CHANNEL_MULTIPLE_HEADS'
  | 'CHANNEL_REPLACES_CYCLE'
  | 'CHANNEL_STRANDED_BUNDLES'
  | 'BUNDLE_NAME_MISSING'
  | 'BUNDLE_NAME_NOT_NORMALIZED'
  | 'BUNDLE_SKIP_EMPTY'
  | 'BUNDLE_SKIP_RANGE_INVALID'
  | 'BUNDLE_IMAGE_MISSING'
  | 'BUNDLE_BUILD_METADATA_WITH_RELEASE'
  | 'UNKNOWN_SCHEMA'
  | 'CHANNEL_HEAD_WITHOUT_METADATA'
  | 'BUNDLE_OBJECT_DEPRECATED'
  | 'API_VERSION_REMOVED';

/** One finding of {@link validateCatalog}. `message` is opm's exact text for the problem (a leaf of its tree). */
export interface ValidationResult {
  readonly level: ValidationLevel;
  readonly code: ValidationCode;
  readonly stage: ValidationStage;
  readonly message: string;
  readonly package?: string;
  readonly channel?: string;
  readonly bundle?: string;
  /** The catalog file (relative, `/`-separated) of the blob at fault, when known. */
  readonly file?: string;
}
