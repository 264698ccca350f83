import type { CatalogFileCache } from '@opkit/olm/catalog/declcfg';
import type { Command } from 'commander';
import { examples, OUTPUT_FORMAT_FLAGS, outputFormatOption } from '../options.js';

const REPORT_FORMATS = ['text', 'json', 'yaml', 'markdown'] as const;
type ReportFormat = (typeof REPORT_FORMATS)[number];

/** `opkit catalog check`: the release gate, a catalog against the one last released. */
export function registerCatalogCheck(catalog: Command): void {
  catalog
    .command('check <catalog>')
    .description(
      'Check a release of a catalog against the last released one: what changed, the upgrade path of every installed version under OLM v0 and v1, and CRD safety, CEL rules and permission changes on each upgrade edge it adds, judged by a policy; exit code 1 when the release fails.',
    )
    .requiredOption(
      '--previous <catalog>',
      'the catalog as last released: a directory, an OCI layout, an image reference or git:<revision>:<dir>',
    )
    .option(
      '--policy <file>',
      'YAML policy: `fail` and `ignore` lists of rule globs (default: every error fails)',
    )
    .addOption(outputFormatOption(OUTPUT_FORMAT_FLAGS, REPORT_FORMATS, 'report format'))
    .option('--plain-http', 'pull image references over HTTP, not HTTPS (a registry on loopback)', false)
    .addHelpText(
      'after',
      examples(
        [
          'opkit catalog check catalog/configs --previous dist/images/opkit-catalog:latest',
          'opkit catalog check catalog/configs --previous git:HEAD:catalog/configs',
          'opkit catalog check catalog/configs --previous registry.example.com/opkit/catalog:0.2.0 --policy release-policy.yaml',
          'opkit catalog check catalog/configs --previous dist/images/opkit-catalog:latest -o markdown',
        ],
        'A bundle accepts findings on the edges into it with its CSV annotation opkit.dev/release-accepts, one\n"<rule glob>: <reason>" per line; accepted findings are listed as such.',
      ),
    )
    .action(
      async (
        source: string,
        opts: { previous: string; policy?: string; output: ReportFormat; plainHttp: boolean },
      ) => {
        // Loaded when the command runs: `opkit --help` and every other command never load the gate or the
        // catalog sources (image unpacking, tar).
        const { loadSourceModel } = await import('../../catalog-source.js');
        const { runStoppable } = await import('../../stop-signals.js');
        const release = await import('@opkit/olm/release');
        const policy =
          opts.policy === undefined
            ? release.DEFAULT_RELEASE_POLICY
            : await release.readReleasePolicy(opts.policy);
        await runStoppable(async (signal) => {
          // One file cache for both: the files the two revisions share are decoded once.
          const fileCache: CatalogFileCache = new Map();
          const options = { plainHttp: opts.plainHttp, signal, fileCache };
          const previous = await loadSourceModel(opts.previous, 'previous catalog', options);
          const next = await loadSourceModel(source, 'catalog', options);
          const report = release.checkRelease(previous, next, {
            checks: release.defaultReleaseChecks,
            policy,
          });
          process.stdout.write(release.renderReleaseReport(report, opts.output));
          if (report.verdict === 'fail') process.exitCode = 1;
        });
      },
    );
}
