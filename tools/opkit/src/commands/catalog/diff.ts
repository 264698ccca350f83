import type { CatalogFileCache } from '@opkit/olm/catalog/declcfg';
import type { Command } from 'commander';
import { examples, OUTPUT_FORMAT_FLAGS, outputFormatOption } from '../options.js';

const FORMATS = ['text', 'json', 'yaml', 'markdown'] as const;
type DiffFormat = (typeof FORMATS)[number];

/** `opkit catalog diff`: what changed between two catalogs, by meaning (the library's diff, printed). */
export function registerCatalogDiff(catalog: Command): void {
  catalog
    .command('diff <old> <new>')
    .description(
      'Show what changed between two file-based catalogs: packages, channels, upgrade edges, bundles.',
    )
    .addOption(
      outputFormatOption(
        OUTPUT_FORMAT_FLAGS,
        FORMATS,
        'output format (markdown: for a pull request comment)',
      ),
    )
    .option(
      '--exit-code',
      'exit with 1 when the catalogs differ, 0 when they do not (as git diff --exit-code)',
      false,
    )
    .option('--plain-http', 'pull image references over HTTP, not HTTPS (a registry on loopback)', false)
    .addHelpText(
      'after',
      examples(
        [
          'opkit catalog diff git:HEAD:catalog/configs catalog/configs',
          'opkit catalog diff git:HEAD:catalog/configs catalog/configs -o markdown',
          'opkit catalog diff catalog/configs dist/images/opkit-catalog:latest --exit-code -o json',
          'opkit catalog diff git:v0.2.0:catalog/configs quay.io/acme/catalog:v0.3.0',
        ],
        `Each of <old> and <new> is a catalog directory, an OCI image layout (<layout-dir> or <layout-dir>:<tag>),
an image reference, or a directory as a revision of the current git repository has it:
git:<revision>:<path>, the path as seen from the current directory (git:HEAD~1:catalog/configs).
Changes are compared by meaning, not text: key order and file layout do not matter.
The exit code is 0 whether or not the catalogs differ; with --exit-code it is 1 when they do.`,
      ),
    )
    .action(
      async (
        previous: string,
        next: string,
        opts: { output: DiffFormat; exitCode: boolean; plainHttp: boolean },
      ) => {
        const { loadSourceModel } = await import('../../catalog-source.js');
        const { runStoppable } = await import('../../stop-signals.js');
        const { diffCatalogs, renderCatalogDiff } = await import('@opkit/olm/release');
        await runStoppable(async (signal) => {
          // One file cache for both: the files the two revisions share are decoded once.
          const fileCache: CatalogFileCache = new Map();
          const options = { plainHttp: opts.plainHttp, signal, fileCache };
          const before = await loadSourceModel(previous, 'old catalog', options);
          const after = await loadSourceModel(next, 'new catalog', options);
          const diff = diffCatalogs(before, after);
          process.stdout.write(renderCatalogDiff(diff, opts.output));
          if (opts.exitCode && diff.packages.length > 0) process.exitCode = 1;
        });
      },
    );
}
