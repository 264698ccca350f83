import { resolve } from 'node:path';
import type { RegistryClient } from '@opkit/oci';
import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import {
  commaList,
  examples,
  OUTPUT_FORMAT_FLAGS,
  outputFormatOption,
  RESULT_FORMATS,
  type ResultFormat,
} from './options.js';

/** A registry client for pinning images to digests; `plainHttp` for a registry on loopback. */
async function registryClient(plainHttp: boolean): Promise<RegistryClient> {
  const { cliRegistryClient } = await import('../registry-client.js');
  return cliRegistryClient({ plainHttp });
}

export function registerBundleCommands(program: Command): void {
  const bundle = program
    .command('bundle')
    .description('Generate, validate and image registry+v1 bundles.')
    .addHelpText(
      'after',
      examples([
        'opkit bundle generate --operator operators/memcached --package memcached-operator --version 0.3.0 --out bundles/memcached-operator/0.3.0',
        'opkit bundle validate bundles/memcached-operator/0.3.0 -o json',
      ]),
    );
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
    .addHelpText(
      'after',
      examples(['opkit bundle build-all', 'opkit bundle build-all --use-image-digests --images dist/images']),
    )
    .action(
      async (opts: {
        operators: string;
        bundles: string;
        images: string;
        useImageDigests: boolean;
        plainHttp: boolean;
      }) => {
        const { buildBundles } = await import('../pipelines/build-bundles.js');
        const client = opts.useImageDigests ? await registryClient(opts.plainHttp) : undefined;
        try {
          await buildBundles({
            operatorsDir: opts.operators,
            bundlesDir: opts.bundles,
            imagesDir: opts.images,
            ...(client ? { imageDigests: client } : {}),
            log: (line) => process.stdout.write(`${line}\n`),
          });
        } finally {
          client?.close();
        }
      },
    );
  bundle
    .command('push')
    .description(
      'Push every bundle image `bundle build-all` wrote to <repository>/<package>-bundle:v<version>.',
    )
    .requiredOption('--repository <prefix>', 'registry and namespace, e.g. quay.io/acme')
    .option('--images <dir>', 'the OCI image layouts of bundle build-all', 'dist/images')
    .option('--plain-http', 'talk HTTP, not HTTPS (a registry on loopback)', false)
    .addHelpText(
      'after',
      `
Examples:
  $ opkit bundle push --repository quay.io/acme
  $ nx run bundle:push --repository=127.0.0.1:5000/opkit --plain-http`,
    )
    .action(async (opts: { repository: string; images: string; plainHttp: boolean }) => {
      const [{ pushBundleImages }, { checkImageReference }] = await Promise.all([
        import('../pipelines/build-bundles.js'),
        import('../registry-client.js'),
      ]);
      checkImageReference('--repository', opts.repository.replace(/\/+$/, ''));
      const pushed = await pushBundleImages({
        imagesDir: opts.images,
        repository: opts.repository,
        plainHttp: opts.plainHttp,
        log: (line) => process.stdout.write(`${line}\n`),
      });
      if (pushed.length === 0) {
        throw new CliError(
          'OPKIT_BUNDLE_IMAGES_MISSING',
          `${opts.images}: no bundle images (<package>-bundle/<version>): run 'nx run bundle:build' first`,
        );
      }
    });
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
      const { generateBundle } = await import('../bundles.js');
      const client = opts.useImageDigests ? await registryClient(opts.plainHttp) : undefined;
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
  bundle
    .command('validate <dir>')
    .description(
      'Validate a bundle as `operator-sdk bundle validate` does (errors and warnings, same messages).',
    )
    .addOption(
      outputFormatOption(
        OUTPUT_FORMAT_FLAGS,
        ['text', 'json', 'json-alpha1'],
        'report format (json is operator-sdk’s json-alpha1)',
      ),
    )
    .option('--select-optional <selector>', 'also run optional validators, e.g. name=operatorhub')
    .addHelpText(
      'after',
      examples([
        'opkit bundle validate bundles/memcached-operator/0.2.0',
        'opkit bundle validate ./bundle --select-optional name=operatorhub -o json-alpha1',
      ]),
    )
    .action(async (dir: string, opts: { output: string; selectOptional?: string }) => {
      const { formatJsonAlpha1, formatText, validateBundleDir } = await import('@opkit/olm');
      const report = validateBundleDir(dir, { selectOptional: opts.selectOptional });
      process.stdout.write(opts.output === 'text' ? formatText(report) : formatJsonAlpha1(report));
      if (!report.passed) process.exitCode = 1;
    });
  bundle
    .command('image <dir>')
    .description(
      'Build the bundle image (FROM scratch, bundle labels) as an OCI image layout, without Docker.',
    )
    .requiredOption(
      '--layout <dir>',
      'OCI layout directory to write: new, empty or an earlier layout (its oci-layout, index.json and blobs/ are replaced)',
    )
    .option('--tag <tag>', 'tag inside the layout', 'latest')
    .addOption(
      outputFormatOption(
        OUTPUT_FORMAT_FLAGS,
        RESULT_FORMATS,
        'result format (text: "<digest> <layout>:<tag>"; json, yaml: reference, digest, media type, size)',
      ),
    )
    .addHelpText(
      'after',
      examples([
        'opkit bundle image bundles/memcached-operator/0.2.0 --layout dist/images/memcached-operator-bundle --tag v0.2.0',
        'opkit bundle image bundles/memcached-operator/0.2.0 --layout dist/images/memcached-operator-bundle -o json',
        'opkit image push dist/images/memcached-operator-bundle:v0.2.0 quay.io/acme/memcached-operator-bundle:v0.2.0',
      ]),
    )
    .action(async (dir: string, opts: { layout: string; tag: string; output: ResultFormat }) => {
      const [{ bundleImage, writeLayout }, { loadBundle }, { imageResult, writeResult }] = await Promise.all([
        import('@opkit/oci'),
        import('@opkit/olm'),
        import('../output.js'),
      ]);
      // Precise errors for a malformed bundle before anything is written; its annotations are the labels.
      const { annotations } = loadBundle(dir);
      const image = await bundleImage(dir, annotations);
      await writeLayout(opts.layout, [{ image, tag: opts.tag }], {
        name: '--layout',
        inputs: [{ name: '<dir>', path: dir }],
      });
      const result = imageResult(opts.layout, opts.tag, image);
      await writeResult(opts.output, result, `${result.digest} ${result.reference}\n`);
    });
}
