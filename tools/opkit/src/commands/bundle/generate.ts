import { resolve } from 'node:path';
import type { Command } from 'commander';
import { commaList, examples } from '../options.js';

/** `opkit bundle generate`: a bundle from an operator's config/manifests, as `operator-sdk generate bundle` writes it. */
export function registerBundleGenerate(bundle: Command): void {
  bundle
    .command('generate')
    .description('Generate a bundle (CSV, CRDs, metadata) from an operator’s config/manifests.')
    .requiredOption('--operator <dir>', 'operator project directory (with config/manifests)')
    .requiredOption('--package <name>', 'OLM package name, e.g. memcached-operator')
    .requiredOption('--version <semver>', 'bundle version')
    .requiredOption(
      '--out <dir>',
      'bundle directory to write: new, empty or an earlier bundle (see below); never the current directory or one holding --operator',
    )
    .option('--force', 'write into a non-empty directory that is not a bundle (its other files stay)', false)
    .option('--channels <list>', 'comma-separated channels', commaList, ['alpha'])
    .option('--default-channel <name>', 'default channel (default: the first channel)')
    .option('--replaces <version|csv>', 'version (0.2.0) or CSV name (<package>.v0.2.0) this bundle replaces')
    .option('--image <ref>', 'operator image')
    .option(
      '--use-image-digests',
      'pin the operator and RELATED_IMAGE_* images to the digests their registries serve now',
      false,
    )
    .option('--plain-http', 'reach registries over HTTP (with --use-image-digests)', false)
    .addHelpText(
      'after',
      examples(
        [
          'opkit bundle generate --operator operators/memcached --package memcached-operator --version 0.3.0 \\\n      --replaces 0.2.0 --channels alpha,stable --out bundles/memcached-operator/0.3.0',
          'opkit bundle generate --operator . --package memcached-operator --version 0.3.0 --out bundle \\\n      --image quay.io/acme/memcached-operator:0.3.0 --use-image-digests',
        ],
        `--out is new, empty, or an earlier bundle (it has metadata/annotations.yaml). Of an existing directory
only manifests/, metadata/, tests/scorecard/config.yaml and bundle.Dockerfile are replaced, as operator-sdk
replaces them; other files stay. A non-empty directory that is not a bundle is refused unless --force is
given; the current directory, --operator, its config/ and a directory holding either are always refused,
--force or not. The bundle is written beside --out first and renamed into place: a failed run leaves the old
bundle as it was.`,
      ),
    )
    .action(async (opts) => {
      const { generateBundle } = await import('@opkit/olm/action/generate-bundle');
      const client = opts.useImageDigests
        ? (await import('../../registry-client.js')).cliRegistryClient({ plainHttp: opts.plainHttp })
        : undefined;
      const { dir } = await generateBundle({
        operatorDir: resolve(opts.operator),
        packageName: opts.package,
        version: opts.version,
        outDir: opts.out,
        channels: opts.channels,
        defaultChannel: opts.defaultChannel,
        replaces: opts.replaces,
        operatorImage: opts.image,
        ...(client ? { imageDigests: client } : {}),
        output: {
          name: '--out',
          force: opts.force,
          forceFlag: '--force',
          inputs: [{ name: '--operator', path: opts.operator }],
        },
      }).finally(() => client?.close());
      process.stdout.write(`wrote bundle ${dir}\n`);
    });
}
