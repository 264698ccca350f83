import { join, relative } from 'node:path';
import { build, type Message } from 'esbuild';
import { CliError } from './cli-error.js';

/** Options of {@link bundleOperator}. */
export interface OperatorBundleOptions {
  /** The operator's project directory; paths in the bundle's comments are relative to it. */
  readonly operatorDir: string;
  /** Absolute path of the entry module, e.g. `<operatorDir>/src/main.ts`. */
  readonly entry: string;
}

/**
 * The `import` header every bundle starts with: CommonJS dependencies bundled into an ES module still call
 * `require` for Node's built-in modules, so give them one.
 */
const REQUIRE_SHIM =
  "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

/**
 * Bundles an operator's entry module and everything it imports (workspace libraries from their TypeScript
 * sources through the `@opkit/source` condition, npm dependencies) into one ES module for Node 24.
 *
 * The output depends only on the sources: no timestamps, and the path comments esbuild writes are relative
 * to `operatorDir`, so the same commit gives the same bytes in any checkout. It is not minified, so stack
 * traces keep the real function names and line structure; the gzip layer is about a third larger than a
 * minified one, next to a base image dozens of times its size.
 *
 * @throws CliError `OPKIT_IMAGE_BUNDLE_FAILED` naming the file, line and reason of the first error.
 */
export async function bundleOperator(options: OperatorBundleOptions): Promise<Uint8Array> {
  try {
    const result = await build({
      entryPoints: [options.entry],
      absWorkingDir: options.operatorDir,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node24',
      conditions: ['@opkit/source'],
      banner: { js: REQUIRE_SHIM },
      outfile: 'main.mjs',
      write: false,
      logLevel: 'silent',
    });
    const [output] = result.outputFiles;
    if (output === undefined) throw new Error('esbuild wrote no output');
    return output.contents;
  } catch (error) {
    const messages = (error as { errors?: Message[] }).errors;
    const first = messages?.[0];
    if (first === undefined) throw error;
    const at =
      first.location === null
        ? relative(process.cwd(), options.entry)
        : `${relative(process.cwd(), join(options.operatorDir, first.location.file))}:${first.location.line}:${first.location.column}`;
    const more = messages!.length > 1 ? ` (and ${messages!.length - 1} more errors)` : '';
    throw new CliError(
      'OPKIT_IMAGE_BUNDLE_FAILED',
      `cannot bundle the operator: ${at}: ${first.text}${more}`,
      {
        cause: error,
      },
    );
  }
}
