import type { Command } from 'commander';
import {
  examples,
  OUTPUT_FORMAT_FLAGS,
  outputFormatOption,
  RESULT_FORMATS,
  type ResultFormat,
} from '../options.js';

/** `opkit catalog build`: templates and bundle directories into a file-based catalog. */
export function registerCatalogBuild(catalog: Command): void {
  catalog
    .command('build')
    .description(
      'Render catalog templates (olm.template.basic, olm.semver, olm.template.substitutes) into an FBC directory.',
    )
    .requiredOption('--template <file...>', 'template files, one per package')
    .option('--bundles <dir>', 'bundle directories, as <package>/<version>/', 'bundles')
    .requiredOption(
      '--out <dir>',
      "catalog directory: new, empty or an earlier catalog; only the templates' package directories are replaced",
    )
    .option('--force', 'write into a non-empty directory that is not a catalog (its other files stay)', false)
    .option(
      '--operators <dir>',
      "operator projects: fail where a template, or the bundle of an operator's current version, disagrees with its version, opkit.channels or opkit.replaces",
    )
    .option(
      '--bundle-images <repository>',
      'name each bundle by its pushed image <repository>/<package>-bundle@<digest> (see bundle push) instead of inline manifests only',
    )
    .option(
      '--plain-http',
      'reach registries over HTTP (--bundle-images, and bundle images the templates name)',
      false,
    )
    .addOption(
      outputFormatOption(
        OUTPUT_FORMAT_FLAGS,
        RESULT_FORMATS,
        'result format (json, yaml: the directory and the package, channel and bundle names)',
      ),
    )
    .addHelpText(
      'after',
      examples(
        [
          'opkit catalog build --template catalog/templates/*.yaml --bundles bundles --out catalog/configs',
          'opkit catalog build --template catalog/templates/memcached-operator.yaml --out catalog/configs',
          'opkit catalog build --template catalog/templates/*.yaml --operators operators --out catalog/configs',
          'opkit catalog build --template catalog/templates/*.yaml --out catalog/configs --bundle-images quay.io/acme',
          'opkit catalog build --template catalog/templates/*.yaml --out catalog/configs -o json',
        ],
        `--out is new, empty, or an earlier catalog (<package>/catalog.json directories). Only the directories of
the packages the templates render are replaced: building one template updates that package and leaves the
others. A non-empty directory that is not a catalog is refused unless --force is given; the current
directory and any directory holding a template, --bundles or --operators are always refused. Files are
written beside --out first and renamed into place: a failed run leaves the old catalog as it was.`,
      ),
    )
    .action(
      async (opts: {
        template: string[];
        bundles: string;
        out: string;
        force: boolean;
        operators?: string;
        bundleImages?: string;
        plainHttp: boolean;
        output: ResultFormat;
      }) => {
        const [{ cliRegistryClient }, { buildCatalog }, { readOperatorReleases }, { writeResult }] =
          await Promise.all([
            import('../../registry-client.js'),
            import('@opkit/olm/action/build-catalog'),
            import('@opkit/olm/action/operator-release'),
            import('../../output.js'),
          ]);
        // One client for the run: the bundle images' digests and the images the templates name.
        const client = cliRegistryClient({ plainHttp: opts.plainHttp });
        const { summary: result } = await buildCatalog({
          templates: opts.template,
          bundlesDir: opts.bundles,
          outDir: opts.out,
          ...(opts.bundleImages ? { bundleImages: { repository: opts.bundleImages, client } } : {}),
          plainHttp: opts.plainHttp,
          registry: client,
          ...(opts.operators !== undefined ? { releases: readOperatorReleases(opts.operators) } : {}),
          output: {
            name: '--out',
            force: opts.force,
            forceFlag: '--force',
            inputs: opts.operators === undefined ? [] : [{ name: '--operators', path: opts.operators }],
          },
        }).finally(() => client.close());
        await writeResult(
          opts.output,
          result,
          `wrote ${opts.out}: ${result.packages.length} packages, ${result.channels.length} channels, ${result.bundles.length} bundles\n`,
        );
      },
    );
}
