/** Stable machine-readable codes of the errors thrown by the catalog module. */
export type CatalogErrorCode =
  | 'CATALOG_NOT_FOUND'
  | 'CATALOG_NOT_A_DIRECTORY'
  | 'CATALOG_LOAD_FAILED'
  | 'CATALOG_WRITE_FAILED'
  | 'CATALOG_INVALID'
  | 'TEMPLATE_INVALID'
  | 'TEMPLATE_UNKNOWN_BUNDLE';

/** Base class of the errors thrown by the catalog module; `code` is stable, `message` is for people. */
export class CatalogError extends Error {
  /** Stable error code. */
  readonly code: CatalogErrorCode;

  constructor(code: CatalogErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.name = 'CatalogError';
  }
}

/** One file that could not be loaded, with the message opm prints for it. */
export interface LoadProblem {
  /** Path relative to the catalog root, `/`-separated. */
  readonly file: string;
  readonly message: string;
}

/**
 * A catalog directory could not be loaded. opm stops at the first broken file; this error lists the first problem
 * of every broken file (`problems`), and its `message` is the first of them (in path order).
 */
export class CatalogLoadError extends CatalogError {
  constructor(
    readonly dir: string,
    readonly problems: readonly LoadProblem[],
    code: CatalogErrorCode = 'CATALOG_LOAD_FAILED',
  ) {
    super(code, problems[0]?.message ?? `cannot load catalog ${dir}`);
    this.name = 'CatalogLoadError';
  }
}

/** Writing a catalog failed; nothing was left at the destination. */
export class CatalogWriteError extends CatalogError {
  constructor(
    readonly dir: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super('CATALOG_WRITE_FAILED', message, options);
    this.name = 'CatalogWriteError';
  }
}

/** A catalog template could not be rendered. `file` and `entry` locate the problem when known. */
export class TemplateError extends CatalogError {
  constructor(
    code: 'TEMPLATE_INVALID' | 'TEMPLATE_UNKNOWN_BUNDLE',
    message: string,
    readonly file?: string,
    readonly entry?: string,
    /** The bundle reference no rendered bundle was given for (`TEMPLATE_UNKNOWN_BUNDLE`). */
    readonly reference?: string,
  ) {
    super(code, message);
    this.name = 'TemplateError';
  }
}
