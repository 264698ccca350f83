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

/** An operator's bundle: the ES module, and the source files it was made of. */
export interface OperatorBundle {
  readonly code: Uint8Array;
  /** Every module with code in the bundle, relative to `operatorDir` (`../../libs/…`, `../../node_modules/…`). */
  readonly inputs: readonly string[];
}

/**
 * Bundles an operator's entry module and everything it imports (workspace libraries from their TypeScript
 * sources through the `@opkit/source` condition, npm dependencies) into one ES module for Node 24.
 *
 * The output depends only on the sources (no timestamps, and the path comments esbuild writes are relative to
 * `operatorDir`), so the same commit gives the same bytes in any checkout. It is not minified: stack traces keep the real function names and line numbers. It is ASCII:
 * Node keeps an operator's whole source in memory for as long as it runs (V8 compiles functions from it on first
 * call), and as UTF-16 when a single character is not ASCII. esbuild escapes every such character in code, but
 * copies the comments it keeps (on class fields) as written, and five dashes and arrows in them made the
 * Memcached operator's 1.2 MB bundle take 2.4 MB; {@link escapeNonAscii} writes them as `\u{…}` text.
 *
 * @throws CliError `OPKIT_IMAGE_BUNDLE_FAILED` naming the file, line and reason of the first error.
 */
export async function bundleOperator(options: OperatorBundleOptions): Promise<OperatorBundle> {
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
      metafile: true,
      logLevel: 'silent',
    });
    const [output] = result.outputFiles;
    if (output === undefined) throw new Error('esbuild wrote no output');
    // The modules something of which is in the bundle (tree shaking can leave an imported one empty).
    const inputs = Object.values(result.metafile.outputs).flatMap((out) =>
      Object.entries(out.inputs)
        .filter(([, input]) => input.bytesInOutput > 0)
        .map(([path]) => path),
    );
    return { code: escapeNonAscii(output.text), inputs };
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

/**
 * `source` as ASCII bytes, each non-ASCII character written as `\u{hex}` text. Only for esbuild's output with
 * its default ASCII charset, where such a character can stand only in a comment: elsewhere the text would
 * change the code.
 */
export function escapeNonAscii(source: string): Uint8Array {
  const ascii = source.replace(/[^\p{ASCII}]/gu, (character) => {
    const codePoint = character.codePointAt(0) ?? 0;
    return `\\u{${codePoint.toString(16)}}`;
  });
  return new TextEncoder().encode(ascii);
}
