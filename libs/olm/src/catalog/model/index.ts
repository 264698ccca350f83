// A catalog's model, as opm's `model` package: packages → channels → entries, built once from the declarative
// config (`convertToModel`, with opm's conversion messages), validated as `opm validate` does, and linted.
export type { CatalogModel, ModelBundle, ModelChannel, ModelPackage } from './catalog-model.js';
export { convertToModel } from './convert-to-model.js';
export { formatValidationResults } from './format.js';
export { channelHead, checkReplacesChain, type ReplacesChainResult } from './replaces-chain.js';
export {
  type ConvertedCatalog,
  convertAndValidate,
  type ValidateCatalogOptions,
  validateCatalog,
} from './validate.js';
export { validateCatalogDir } from './validate-dir.js';
export type {
  ValidationCode,
  ValidationLevel,
  ValidationResult,
  ValidationStage,
} from './validation-result.js';
