import type { Command } from 'commander';
import {
  examples,
  OUTPUT_FORMAT_FLAGS,
  outputFormatOption,
  RESULT_FORMATS,
  type ResultFormat,
} from '../options.js';

/** `opkit bundle build-all`: every operator's current bundle generated, every bundle validated and imaged. */
export function registerBundleBuildAll(bundle: Command): void {
  bundle
    .command('build-all')
    .description('Generate every operator’s current bundle, validate all bundles and build their images.')
    .option('--operators <dir>', 'operator projects (with an `opkit` field in package.json)', 'operators')
    .option('--bundles <dir>', 'bundles, as <package>/<version>/', 'bundles')
    .option('--images <dir>', 'where the OCI image layouts go', 'dist/images')
    .option(
      '--use-image-digests',
      'pin the operator and RELATED_IMAGE_* images of the generated bundles to their current digests',
      false,
    )
    .option('--plain-http', 'reach registries over HTTP (with --use-image-digests)', false)
    .addOption(
      outputFormatOption(
        OUTPUT_FORMAT_FLAGS,
        RESULT_FORMATS,
        'result format (json, yaml: each bundle, its image layout and digest; progress goes to stderr)',
      ),
    )
    .addHelpText(
      'after',
      examples(['opkit bundle build-all', 'opkit bundle build-all --images dist/images -o json']),
    )
    .action(
      async (opts: {
        operators: string;
        bundles: string;
        images: string;
        useImageDigests: boolean;
        plainHttp: boolean;
        output: ResultFormat;
      }) => {
        const { progressLog, writeResult } = await import('../../output.js');
        const { buildBundles } = await import('@opkit/olm/action/build-bundles');
        const client = opts.useImageDigests
          ? (await import('../../registry-client.js')).cliRegistryClient({ plainHttp: opts.plainHttp })
          : undefined;
        try {
          const built = await buildBundles({
            operatorsDir: opts.operators,
            bundlesDir: opts.bundles,
            imagesDir: opts.images,
            ...(client ? { imageDigests: client } : {}),
            onProgress: progressLog(opts.output),
          });
          // The text lines are the progress, already printed.
          await writeResult(opts.output, built, '');
        } finally {
          client?.close();
        }
      },
    );
}
