import { join, resolve } from 'node:path';
import type { ProjectRelease } from '@opkit/olm/action/project-release';
import type { Command } from 'commander';
import { CliError } from '../../cli-error.js';
import {
  commaList,
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

/** The flags of `bundle generate` as commander parses them: only what the user gave. */
interface GenerateFlags extends PlatformFlags {
  operator: string;
  package?: string;
  version?: string;
  out?: string;
  force: boolean;
  channels?: string[];
  defaultChannel?: string;
  replaces?: string;
  image?: string;
  useImageDigests: boolean;
  plainHttp: boolean;
  output: ResultFormat;
}

/** The flags, with what the project states for each one not given. */
function bundleOptions(flags: GenerateFlags, project: ProjectRelease) {
  const packageName = flags.package ?? project.package;
  const version = flags.version ?? project.version;
  const states = (field: string) =>
    project.found ? `${project.source} states no ${field}` : `there is no ${project.source}`;
  const missing = [
    ...(packageName === undefined ? [`--package (${states('opkit.package')})`] : []),
    ...(version === undefined ? [`--version (${states('version')})`] : []),
  ];
  if (packageName === undefined || version === undefined)
    throw new CliError('OPKIT_ARGUMENT_MISSING', `give ${missing.join(' and ')}`);
  // opkit.replaces is what the project's own version replaces; another version replaces something else.
  const ownVersion = version === project.version;
  return {
    ...flags,
    package: packageName,
    version,
    out: flags.out ?? join('bundles', packageName, version),
    channels: flags.channels ?? project.channels ?? ['alpha'],
    replaces: flags.replaces ?? (ownVersion ? project.replaces : undefined),
    image: flags.image ?? (project.image === undefined ? undefined : `${project.image}:${version}`),
  };
}

/** `opkit bundle generate`: a bundle from an operator's config/manifests, as `operator-sdk generate bundle` writes it. */
export function registerBundleGenerate(
  parent: Command,
  spelling: 'bundle generate' | 'generate bundle',
): void {
  const command = spelling === 'bundle generate' ? 'opkit bundle generate' : 'opkit generate bundle';
  const generate = parent
    .command(spelling === 'bundle generate' ? 'generate' : 'bundle')
    .description(
      spelling === 'bundle generate'
        ? 'Generate a bundle (CSV, CRDs, metadata) from an operator’s config/manifests.'
        : 'operator-sdk’s spelling of `opkit bundle generate`: the same command, the same options.',
    )
    .option('--operator <dir>', 'operator project directory (with package.json and config/manifests)', '.')
    .option('--package <name>', 'OLM package name (default: opkit.package of package.json)')
    .option('--version <semver>', 'bundle version (default: version of package.json)')
    .option(
      '--out <dir>',
      'bundle directory to write: new, empty or an earlier bundle (see below); never the current directory or one holding --operator (default: bundles/<package>/<version>)',
    )
    .option('--force', 'write into a non-empty directory that is not a bundle (its other files stay)', false)
    .option(
      '--channels <list>',
      'comma-separated channels (default: opkit.channels of package.json, else alpha)',
      commaList,
    )
    .option('--default-channel <name>', 'default channel (default: the first channel)')
    .option(
      '--replaces <version|csv>',
      'version (0.2.0) or CSV name (<package>.v0.2.0) this bundle replaces (default: opkit.replaces of package.json, for its version)',
    )
    .option('--image <ref>', 'operator image (default: <opkit.image>:<version> of package.json)')
    .option(
      '--use-image-digests',
      'pin the operator and RELATED_IMAGE_* images to the digests their registries serve now',
      false,
    )
    .option('--plain-http', 'reach registries over HTTP (with --use-image-digests, --platforms-from)', false);
  addPlatformOptions(generate)
    .addOption(
      outputFormatOption(
        OUTPUT_FORMAT_FLAGS,
        RESULT_FORMATS,
        'result format (json, yaml: the directory, the files written and the annotations)',
      ),
    )
    .addHelpText(
      'after',
      examples(
        [
          `${command} --operator operators/memcached`,
          `${command} --operator operators/memcached --package memcached-operator --version 0.4.0 \\\n      --replaces 0.3.0 --channels alpha,stable --out bundles/memcached-operator/0.4.0`,
          `${command} --operator . --package memcached-operator --version 0.3.0 --out bundle \\\n      --image quay.io/acme/memcached-operator:0.3.0 --use-image-digests`,
          `${command} --operator operators/memcached --out out/memcached-operator --platforms linux/amd64,linux/arm64`,
          `${command} --operator operators/memcached --out out/memcached-operator --platforms-from registry`,
        ],
        `What the operator's package.json states is the default: its version, and its opkit field's package,
channels, image (tagged with the version) and replaces (for that version); a project without an opkit
field names its package by its base CSV (config/manifests/bases/<package>.clusterserviceversion.yaml).
Flags override.

--out is new, empty, or an earlier bundle (it has metadata/annotations.yaml). Of an existing directory
only manifests/, metadata/, tests/scorecard/config.yaml and bundle.Dockerfile are replaced, as operator-sdk
replaces them; other files stay. A non-empty directory that is not a bundle is refused unless --force is
given; the current directory, --operator, its config/ and a directory holding either are always refused,
--force or not. The bundle is written beside --out first and renamed into place: a failed run leaves the old
bundle as it was.

${PLATFORM_NOTES}`,
      ),
    )
    .action(async (flags: GenerateFlags) => {
      const [{ generateBundle }, { readProjectRelease }, { releasePlatforms }] = await Promise.all([
        import('@opkit/olm/action/generate-bundle'),
        import('@opkit/olm/action/project-release'),
        import('@opkit/olm/action/release-platforms'),
      ]);
      const project = readProjectRelease(flags.operator);
      const opts = bundleOptions(flags, project);
      let client: import('@opkit/oci').RegistryClient | undefined;
      // The flags are checked before a registry client is opened: a refused flag leaves nothing open.
      const option = await bundlePlatforms(opts, () => {
        if (client === undefined) throw new Error('no registry client');
        return client;
      });
      const platforms = releasePlatforms(option, { file: project.source, platforms: project.platforms });
      if (opts.useImageDigests || opts.platformsFrom === 'registry')
        client = (await import('../../registry-client.js')).cliRegistryClient({ plainHttp: opts.plainHttp });
      const { dir, files, annotations } = await generateBundle({
        operatorDir: resolve(opts.operator),
        packageName: opts.package,
        version: opts.version,
        outDir: opts.out,
        channels: opts.channels,
        defaultChannel: opts.defaultChannel,
        replaces: opts.replaces,
        operatorImage: opts.image,
        ...(client && opts.useImageDigests ? { imageDigests: client } : {}),
        ...(platforms === undefined ? {} : { platforms }),
        onProgress: (line) => process.stderr.write(`${line}\n`),
        output: {
          name: '--out',
          force: opts.force,
          forceFlag: '--force',
          inputs: [{ name: '--operator', path: opts.operator }],
        },
      }).finally(() => client?.close());
      const { writeResult } = await import('../../output.js');
      await writeResult(
        opts.output,
        { dir, package: opts.package, version: opts.version, files, annotations },
        `wrote bundle ${dir}\n`,
      );
    });
}
