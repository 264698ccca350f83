import { type Command, InvalidArgumentError } from 'commander';
import { CliError } from '../../cli-error.js';
import { commaList, examples, OUTPUT_FORMAT_FLAGS, outputFormatOption } from '../options.js';
import { imageLayouts } from './platform-options.js';

const FORMATS = ['text', 'json', 'yaml', 'json-alpha1'] as const;
type ValidateFormat = (typeof FORMATS)[number];

interface ValidateOptions {
  output: ValidateFormat;
  selectOptional?: string;
  optionalValues?: Record<string, string>;
  listOptional: boolean;
  plainHttp: boolean;
  username?: string;
  password?: string;
  imageLayout?: Map<string, string>;
}

/** `--optional-values k8s-version=1.36,container-tools=podman`, repeatable: the values merged. */
function optionalValues(value: string, previous: Record<string, string> | undefined): Record<string, string> {
  const values = { ...previous };
  for (const pair of commaList(value)) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new InvalidArgumentError(`${pair}: give key=value pairs, e.g. k8s-version=1.36.`);
    values[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return values;
}

/** `opkit bundle validate`: a bundle checked as `operator-sdk bundle validate` checks it. */
export function registerBundleValidate(bundle: Command): void {
  bundle
    .command('validate [bundle]')
    .description(
      'Validate a bundle — directory, OCI layout or image — as `operator-sdk bundle validate` does (errors and warnings, same messages).',
    )
    .addOption(
      outputFormatOption(
        OUTPUT_FORMAT_FLAGS,
        FORMATS,
        'report format (json and yaml: operator-sdk’s json-alpha1 document)',
      ),
    )
    .option(
      '--select-optional <selector>',
      'also run the optional validators this label selector picks, e.g. suite=operatorframework or name=good-practices',
    )
    .option(
      '--optional-values <key=value,...>',
      'values the optional validators read: k8s-version, index-path, container-tools',
      optionalValues,
    )
    .option('--list-optional', 'list the optional validators, their labels and what they check', false)
    .option('--plain-http', 'pull an image reference over HTTP, not HTTPS (a registry on loopback)', false)
    .option('--username <name>', 'registry user (with --password or OPKIT_REGISTRY_PASSWORD)')
    .option('--password <secret>', 'registry password (default: docker login’s credentials)')
    .option(
      '--image-layout <reference=layout>',
      'multiarch: read the CSV image <reference> from this OCI layout (<dir> or <dir>:<tag>), not its registry; repeatable',
      imageLayouts,
    )
    .addHelpText(
      'after',
      examples(
        [
          'opkit bundle validate bundles/memcached-operator/0.2.0',
          'opkit bundle validate ./bundle --select-optional name=operatorhubv2 -o json-alpha1',
          'opkit bundle validate bundles/memcached-operator/0.3.0 --select-optional suite=operatorframework \\\n      --optional-values k8s-version=1.36',
          'opkit bundle validate dist/images/memcached-operator-bundle/0.3.0:0.3.0',
          'opkit bundle validate quay.io/acme/memcached-operator-bundle:v0.3.0',
          'opkit bundle validate bundles/memcached-operator/0.3.0 --select-optional name=multiarch',
          'opkit bundle validate ./bundle --select-optional name=multiarch \\\n      --image-layout registry.example/memcached-operator:0.3.0=dist/images/memcached-operator:0.3.0',
          'opkit bundle validate --list-optional',
        ],
        `[bundle] is a bundle directory, an OCI image layout of a bundle image (<layout-dir> or
<layout-dir>:<tag>) or a bundle image reference, pulled with docker's and podman's login credentials.
The exit code is 1 when there is an error; warnings alone pass.

name=multiarch reads the platforms of the CSV's images (manager, other containers, relatedImages) from their
registries, with docker's and podman's login credentials, each sent to its own registry only (--username and
--password are the bundle image's), or from the layouts --image-layout names; no container tool is run. An
image that cannot be read is reported as operator-sdk reports one its container tool could not inspect.`,
      ),
    )
    .action(async (source: string | undefined, opts: ValidateOptions) => {
      const validation = await import('@opkit/olm/validation');
      const { writeResult } = await import('../../output.js');
      const format = opts.output === 'json-alpha1' ? 'json' : opts.output;
      if (opts.listOptional) {
        const list = validation.OPTIONAL_VALIDATORS.map(({ name, labels, description }) => ({
          name,
          labels: { ...labels },
          description,
        }));
        await writeResult(format, list, listText(list));
        return;
      }
      if (source === undefined)
        throw new CliError('OPKIT_ARGUMENT_MISSING', 'give the bundle to validate, or --list-optional');
      const selected =
        opts.selectOptional === undefined ? [] : validation.selectOptionalValidators(opts.selectOptional);
      if (selected.some((v) => v.name === 'operatorhub')) {
        // operator-sdk's own warning names validators by their Go names, which no selector takes.
        process.stderr.write(
          'opkit: the operatorhub validator is deprecated: select its successors with --select-optional suite=operatorframework (or name=operatorhubv2, name=capabilities, name=categories)\n',
        );
      }
      const { withBundleSource } = await import('@opkit/olm/action/bundle-source');
      let client: import('@opkit/oci').RegistryClient | undefined;
      let imagesClient: import('@opkit/oci').RegistryClient | undefined;
      const { cliRegistryClient } = await import('../../registry-client.js');
      try {
        const report = await withBundleSource(
          source,
          {
            registry: () => {
              client = cliRegistryClient({
                plainHttp: opts.plainHttp,
                ...(opts.username === undefined ? {} : { username: opts.username }),
                ...(opts.password === undefined ? {} : { password: opts.password }),
              });
              return client;
            },
          },
          (dir) =>
            validation.validateBundleDirReadingImages(
              dir,
              {
                ...(opts.selectOptional === undefined ? {} : { selectOptional: opts.selectOptional }),
                ...(opts.optionalValues === undefined ? {} : { optionalValues: opts.optionalValues }),
              },
              async (images) => {
                const { inspectImagePlatforms } = await import('@opkit/olm/action/image-platforms');
                return inspectImagePlatforms(images, {
                  // Login files only: a --username is the bundle image's, not every registry's.
                  registry: () => {
                    imagesClient ??= cliRegistryClient({ plainHttp: opts.plainHttp });
                    return imagesClient;
                  },
                  ...(opts.imageLayout === undefined ? {} : { layouts: opts.imageLayout }),
                });
              },
            ),
        );
        // json is operator-sdk's json-alpha1 bytes; yaml the same document.
        if (format === 'json') process.stdout.write(validation.formatJsonAlpha1(report));
        else await writeResult(format, validation.toJsonAlpha1(report), validation.formatText(report));
        if (!report.passed) process.exitCode = 1;
      } finally {
        client?.close();
        imagesClient?.close();
      }
    });
}

/** The validators as operator-sdk's `--list-optional` table: name, labels, description. */
function listText(
  list: readonly { name: string; labels: Record<string, string>; description: string }[],
): string {
  const rows = [
    ['NAME', 'LABELS', 'DESCRIPTION'],
    ...list.map((v) => [
      v.name,
      Object.entries(v.labels)
        .map(([k, value]) => `${k}=${value}`)
        .join(','),
      v.description,
    ]),
  ];
  const widths = [0, 1].map((i) => Math.max(...rows.map((r) => (r[i] ?? '').length)) + 3);
  return rows
    .map(([name = '', labels = '', description = '']) =>
      `${name.padEnd(widths[0] ?? 0)}${labels.padEnd(widths[1] ?? 0)}${description}`.trimEnd(),
    )
    .join('\n')
    .concat('\n');
}
