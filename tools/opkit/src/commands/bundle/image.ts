import { join } from 'node:path';
import type { Command } from 'commander';
import { CliError } from '../../cli-error.js';
import {
  examples,
  OUTPUT_FORMAT_FLAGS,
  outputFormatOption,
  RESULT_FORMATS,
  type ResultFormat,
} from '../options.js';

/** `opkit bundle image`: the bundle image as an OCI layout. */
export function registerBundleImage(bundle: Command): void {
  bundle
    .command('image <dir>')
    .description(
      'Build the bundle image (FROM scratch, bundle labels) as an OCI image layout, without Docker.',
    )
    .option(
      '--layout <dir>',
      'OCI layout directory to write: new, empty or an earlier layout (its oci-layout, index.json and blobs/ are replaced; default: dist/images/<package>-bundle/<version>, where bundle build-all writes it)',
    )
    .option('--tag <tag>', 'tag inside the layout (default: <version> in the default layout, else latest)')
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
        'opkit bundle image bundles/memcached-operator/0.2.0',
        'opkit bundle image bundles/memcached-operator/0.2.0 --layout dist/images/memcached-operator-bundle/0.2.0 --tag 0.2.0',
        'opkit bundle image bundles/memcached-operator/0.2.0 --layout dist/images/memcached-operator-bundle/0.2.0 -o json',
        'opkit image push dist/images/memcached-operator-bundle/0.2.0:0.2.0 quay.io/acme/memcached-operator-bundle:v0.2.0',
      ]),
    )
    .action(async (dir: string, opts: { layout?: string; tag?: string; output: ResultFormat }) => {
      const [{ bundleImage, writeLayout }, { loadBundle }, { imageResult, writeResult }] = await Promise.all([
        import('@opkit/oci'),
        import('@opkit/olm'),
        import('../../output.js'),
      ]);
      // Precise errors for a malformed bundle before anything is written; its annotations are the labels.
      const { annotations, packageName, csv } = loadBundle(dir);
      // The bundle states its package and version: the layout bundle build-all writes, unless named.
      const version = csv.spec?.version ?? 'latest';
      const layout = opts.layout ?? (await defaultLayout(dir, packageName, version));
      const tag = opts.tag ?? (opts.layout === undefined ? version : 'latest');
      const image = await bundleImage(dir, annotations);
      await writeLayout(layout, [{ image, tag }], {
        name: '--layout',
        inputs: [{ name: '<dir>', path: dir }],
      });
      const result = imageResult(layout, tag, image);
      await writeResult(opts.output, result, `${result.digest} ${result.reference}\n`);
    });
}

/**
 * `dist/images/<package>-bundle/<version>`, from names the bundle states: both checked first, so that a
 * package or version such as `..` cannot place the layout outside dist/images.
 */
async function defaultLayout(dir: string, packageName: string, version: string): Promise<string> {
  const { checkPackageName } = await import('@opkit/olm/action/package-name');
  checkPackageName(
    packageName,
    `${dir}: metadata/annotations.yaml operators.operatorframework.io.bundle.package.v1`,
  );
  if (!/^[0-9A-Za-z][0-9A-Za-z.+_-]*$/.test(version) || version.includes('..'))
    throw new CliError(
      'OPKIT_ARGUMENT_INVALID',
      `${dir}: the CSV's spec.version ${JSON.stringify(version)} cannot name a layout directory; give --layout`,
    );
  return join('dist', 'images', `${packageName}-bundle`, version);
}
