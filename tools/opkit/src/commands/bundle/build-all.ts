import type { Command } from 'commander';
import {
  examples,
  OUTPUT_FORMAT_FLAGS,
  outputFormatOption,
  RESULT_FORMATS,
  type ResultFormat,
} from '../options.js';
import {
  addPlatformOptions,
  bundlePlatforms,
  PLATFORM_NOTES,
  type PlatformFlags,
} from './platform-options.js';

/** `opkit bundle build-all`: every operator's current bundle generated, every bundle validated and imaged. */
export function registerBundleBuildAll(bundle: Command): void {
  const buildAll = bundle
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
    .option('--plain-http', 'reach registries over HTTP (with --use-image-digests, --platforms-from)', false);
  addPlatformOptions(buildAll)
    .addOption(
      outputFormatOption(
        OUTPUT_FORMAT_FLAGS,
        RESULT_FORMATS,
        'result format (json, yaml: each bundle, its image layout and digest; progress goes to stderr)',
      ),
    )
    .addHelpText(
      'after',
      examples(
        [
          'opkit bundle build-all',
          'opkit bundle build-all --images dist/images -o json',
          'opkit bundle build-all --platforms-from registry',
        ],
        `The platform options apply to the bundles this run generates (each operator's current version); released
bundles stay as they are.

${PLATFORM_NOTES}`,
      ),
    )
    .action(
      async (
        opts: PlatformFlags & {
          operators: string;
          bundles: string;
          images: string;
          useImageDigests: boolean;
          plainHttp: boolean;
          output: ResultFormat;
        },
      ) => {
        const { progressLog, writeResult } = await import('../../output.js');
        const { buildBundles } = await import('@opkit/olm/action/build-bundles');
        let client: import('@opkit/oci').RegistryClient | undefined;
        // The flags are checked before a registry client is opened: a refused flag leaves nothing open.
        const platforms = await bundlePlatforms(opts, () => {
          if (client === undefined) throw new Error('no registry client');
          return client;
        });
        if (opts.useImageDigests || opts.platformsFrom === 'registry')
          client = (await import('../../registry-client.js')).cliRegistryClient({
            plainHttp: opts.plainHttp,
          });
        try {
          const built = await buildBundles({
            operatorsDir: opts.operators,
            bundlesDir: opts.bundles,
            imagesDir: opts.images,
            ...(client && opts.useImageDigests ? { imageDigests: client } : {}),
            ...(platforms === undefined ? {} : { platforms }),
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
