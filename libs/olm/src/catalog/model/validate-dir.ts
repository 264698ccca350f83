import { CatalogLoadError } from '../declcfg/errors.js';
import { loadCatalog } from '../declcfg/load.js';
import { type ValidateCatalogOptions, validateCatalog } from './validate.js';
import type { ValidationResult } from './validation-result.js';

/**
 * `opm validate <dir>` as a function: loads the directory and validates it. Load problems (unreadable or
 * undecodable files, a missing directory) become `load`-stage errors instead of exceptions.
 */
export async function validateCatalogDir(
  dir: string,
  options: ValidateCatalogOptions = {},
): Promise<ValidationResult[]> {
  try {
    return validateCatalog(await loadCatalog(dir), options);
  } catch (err) {
    if (!(err instanceof CatalogLoadError)) throw err;
    return err.problems.map(
      (p): ValidationResult =>
        p.file === ''
          ? { level: 'error', code: 'LOAD_FAILED', stage: 'load', message: p.message }
          : { level: 'error', code: 'LOAD_FAILED', stage: 'load', message: p.message, file: p.file },
    );
  }
}
