import type { Catalog } from '../declcfg/types.js';
import { lintCatalog } from './catalog-lint.js';
import type { CatalogModel } from './catalog-model.js';
import { convertToModel } from './convert-to-model.js';
import { validateModel } from './validate-model.js';
import { ValidationReport } from './validation-report.js';
import type { ValidationResult } from './validation-result.js';

/** Options of {@link validateCatalog}. */
export interface ValidateCatalogOptions {
  /** Add opkit's own warnings (stage `lint`), which never make a catalog invalid. Default `true`. */
  readonly warnings?: boolean;
}

/**
 * Validates a catalog like `opm validate` (operator-registry v1.73.0): first the checks of
 * `declcfg.ConvertToModel` (stage `convert`), then — only when those pass, as opm never gets further —
 * `model.Validate` (stage `model`). Messages are opm's, verbatim. Unlike opm, which stops at the first convert
 * problem, every convert problem is reported (blobs at fault are left out of the model), and channel entries
 * without a bundle are checked in every channel (opm only checks the last channel it loaded per package).
 * With `warnings` (default), opkit's own `lint` warnings follow; they never make a catalog invalid.
 *
 * Use {@link formatValidationResults} to print the results the way opm does.
 */
export function validateCatalog(catalog: Catalog, options: ValidateCatalogOptions = {}): ValidationResult[] {
  return convertAndValidate(catalog, options).results;
}

/** A catalog's model and what validating the catalog found. */
export interface ConvertedCatalog {
  /** The model, without the blobs that failed to convert. */
  readonly model: CatalogModel;
  readonly results: ValidationResult[];
}

/**
 * {@link validateCatalog}, returning the model it validated as well, for whoever uses the catalog next (the
 * registry serves it) so the catalog is converted once.
 */
export function convertAndValidate(catalog: Catalog, options: ValidateCatalogOptions = {}): ConvertedCatalog {
  const report = new ValidationReport();
  const model = convertToModel(catalog, report.reporter('convert'));
  if (report.results.length === 0) validateModel(model, report.reporter('model'));
  if (options.warnings ?? true) lintCatalog(catalog, model, report.reporter('lint', 'warning'));
  return { model, results: report.results };
}
