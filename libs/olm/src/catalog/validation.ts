/**
 * What `opkit catalog validate` needs of file-based catalogs, and no more: loading and validating a directory
 * and printing the results as opm does. A narrower entry point than `@opkit/olm/catalog`, whose templates,
 * writers and bundle rendering a validation never runs but would load (a third of its modules).
 */
export { formatValidationResults } from './model/format.js';
export { type ValidateCatalogOptions, validateCatalog } from './model/validate.js';
export { validateCatalogDir } from './model/validate-dir.js';
export type {
  ValidationCode,
  ValidationLevel,
  ValidationResult,
  ValidationStage,
} from './model/validation-result.js';
