import { type Command, Option } from 'commander';
import {
  examples,
  OUTPUT_FORMAT_FLAGS,
  outputFormatOption,
  RESULT_FORMATS,
  type ResultFormat,
} from '../options.js';

/** `opkit generate kustomize manifests`: the base CSV and kustomization of config/manifests, as operator-sdk writes them. */
export function registerGenerateKustomizeManifests(kustomize: Command): void {
  kustomize
    .command('manifests')
    .description(
      'Write config/manifests/bases/<package>.clusterserviceversion.yaml (owned CRDs from config/crd/bases, ' +
        'every other field of an existing base kept) and config/manifests/kustomization.yaml when missing.',
    )
    .option('--operator <dir>', 'the operator project (package.json and config/)', '.')
    // The name this option had before --operator, as every other command calls it.
    .addOption(new Option('--project <dir>').hideHelp())
    .option('--package <name>', 'the package name (default: the opkit.package field of package.json)')
    .option('--input-dir <dir>', 'where an existing base is read from (default: <operator>/config/manifests)')
    .option(
      '--output-dir <dir>',
      'where the base and kustomization go (default: <operator>/config/manifests)',
    )
    .option(
      '--interactive [bool]',
      'operator-sdk’s prompts; opkit never prompts, so only false is taken',
      'false',
    )
    .option('-q, --quiet', 'print nothing (the written files are not listed)', false)
    .addOption(outputFormatOption(OUTPUT_FORMAT_FLAGS, RESULT_FORMATS, 'how the written files are listed'))
    .addHelpText(
      'after',
      examples(
        [
          'opkit generate kustomize manifests --operator operators/memcached',
          'opkit generate kustomize manifests --operator operators/redis --package redis-operator --output-dir dist/redis-manifests',
          'opkit generate kustomize manifests --operator operators/memcached -o json',
        ],
        'Running it again on an edited base keeps the edits: only spec.customresourcedefinitions.owned (and\n' +
          'spec.installModes when missing) are derived. A new base takes its description from package.json.',
      ),
    )
    .action(
      async (opts: {
        operator: string;
        project?: string;
        package?: string;
        inputDir?: string;
        outputDir?: string;
        interactive: string | boolean;
        quiet: boolean;
        output: ResultFormat;
      }) => {
        const [{ generateKustomizeManifests }, { CliError }] = await Promise.all([
          import('@opkit/olm/action/generate-kustomize-manifests'),
          import('../../cli-error.js'),
        ]);
        if (String(opts.interactive) !== 'false')
          throw new CliError(
            'OPKIT_ARGUMENT_INVALID',
            '--interactive: opkit never prompts; only false is taken',
          );
        const result = generateKustomizeManifests({
          projectDir: opts.project ?? opts.operator,
          ...(opts.package !== undefined ? { packageName: opts.package } : {}),
          ...(opts.inputDir !== undefined ? { inputDir: opts.inputDir } : {}),
          ...(opts.outputDir !== undefined ? { outputDir: opts.outputDir } : {}),
        });
        if (opts.quiet) return;
        const { writeResult } = await import('../../output.js');
        await writeResult(
          opts.output,
          result.files,
          result.files.map((f) => `${f.changed ? 'wrote' : 'unchanged'} ${f.path}\n`).join(''),
        );
      },
    );
}
