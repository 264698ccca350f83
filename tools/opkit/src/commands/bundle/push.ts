import type { Command } from 'commander';
import { CliError } from '../../cli-error.js';
import { OUTPUT_FORMAT_FLAGS, outputFormatOption, RESULT_FORMATS, type ResultFormat } from '../options.js';

/** `opkit bundle push`: the bundle images of `build-all` pushed to a registry. */
export function registerBundlePush(bundle: Command): void {
  bundle
    .command('push')
    .description(
      'Push every bundle image `bundle build-all` wrote to <repository>/<package>-bundle:v<version>.',
    )
    .requiredOption('--repository <prefix>', 'registry and namespace, e.g. quay.io/acme')
    .option('--images <dir>', 'the OCI image layouts of bundle build-all', 'dist/images')
    .option('--plain-http', 'talk HTTP, not HTTPS (a registry on loopback)', false)
    .addOption(
      outputFormatOption(
        OUTPUT_FORMAT_FLAGS,
        RESULT_FORMATS,
        'result format (json, yaml: each reference and digest pushed; progress goes to stderr)',
      ),
    )
    .addHelpText(
      'after',
      `
Examples:
  $ opkit bundle push --repository quay.io/acme
  $ nx run bundle:push --repository=127.0.0.1:5000/opkit --plain-http`,
    )
    .action(
      async (opts: { repository: string; images: string; plainHttp: boolean; output: ResultFormat }) => {
        const [
          { pushBundleImages },
          { checkImageReference },
          { cliRegistryClient },
          { progressLog, writeResult },
        ] = await Promise.all([
          import('@opkit/olm/action/build-bundles'),
          import('@opkit/olm/action/image-reference'),
          import('../../registry-client.js'),
          import('../../output.js'),
        ]);
        checkImageReference('--repository', opts.repository.replace(/\/+$/, ''));
        const registry = cliRegistryClient({ plainHttp: opts.plainHttp });
        const pushed = await pushBundleImages({
          imagesDir: opts.images,
          repository: opts.repository,
          registry,
          onProgress: progressLog(opts.output),
        }).finally(() => registry.close());
        if (pushed.length === 0) {
          throw new CliError(
            'OPKIT_BUNDLE_IMAGES_MISSING',
            `${opts.images}: no bundle images (<package>-bundle/<version>): run 'nx run bundle:build' first`,
          );
        }
        // The text lines are the progress, already printed.
        await writeResult(opts.output, pushed, '');
      },
    );
}
