import { join } from 'node:path';

/**
 * The CLI's package directory (where `package.json` is). Every module of the CLI runs one directory below it:
 * `src/` in the repository, `dist/` in the build, which writes all its bundled files at the top of `dist/`.
 */
export const CLI_PACKAGE_DIR = join(import.meta.dirname, '..');
