import { existsSync } from 'node:fs';
import { type Command, Option } from 'commander';
import { CliError } from '../../cli-error.js';
import { DEFAULT_BASE_IMAGE, DEFAULT_USER } from '../../pipelines/image-defaults.js';
import { OUTPUT_FORMAT_FLAGS, RESULT_FORMATS, type ResultFormat } from '../options.js';

/**
 * The format and the layout of `-o` and `--layout`. `-o` is a result format, as everywhere else; until the
 * next release a value that is not a format is the OCI layout directory, as `-o <dir>` was before `--layout`,
 * with a warning on stderr (hence no choices on the option).
 */
function splitOutput(opts: { output: string; layout?: string }): { format: ResultFormat; layout?: string } {
  if ((RESULT_FORMATS as readonly string[]).includes(opts.output))
    return {
      format: opts.output as ResultFormat,
      ...(opts.layout === undefined ? {} : { layout: opts.layout }),
    };
  // A bare word that names no directory is a mistyped format (`-o jsno`), not a layout to create.
  if (!/[/\\]/.test(opts.output) && !existsSync(opts.output))
    throw new CliError(
      'OPKIT_ARGUMENT_INVALID',
      `-o ${opts.output}: not a result format (${RESULT_FORMATS.join(', ')}); the OCI layout directory is --layout <dir>`,
    );
  process.stderr.write(
    `opkit: image build -o <dir> is deprecated and goes in the next release: write --layout ${opts.output} (-o is the result format, text|json|yaml)\n`,
  );
  return { format: 'text', layout: opts.layout ?? opts.output };
}

interface BuildOptions {
  operator: string;
  entry: string;
  base: string;
  tag?: string;
  layout?: string;
  output: string;
  version?: string;
  revision?: string;
  source?: string;
  user: string;
  node?: string;
  nodeOptions?: string;
  platform?: string;
  plainHttp: boolean;
}

/** `opkit image build`: an operator image (esbuild bundle on a Node base) as an OCI layout. */
export function registerImageBuild(image: Command): void {
  image
    .command('build')
    .description(
      'Build an operator image without Docker: the entry bundled into /app/main.mjs on a Node base image, ' +
        'one image per linux platform of the base, written to an OCI layout.',
    )
    .option('--operator <dir>', 'operator project (package.json with an `opkit` field)', '.')
    .option('--entry <file>', 'entry module, relative to the operator', 'src/main.ts')
    .option('--base <image>', 'base image: registry reference, or OCI layout dir[:tag]', DEFAULT_BASE_IMAGE)
    .option('--tag <ref>', 'tag in the layout (default: <opkit.image>:<version>)')
    .option(
      '--layout <dir>',
      'OCI layout to write: new, empty or an earlier layout (default: dist/images/<opkit.package>)',
    )
    .addOption(
      new Option(
        OUTPUT_FORMAT_FLAGS,
        `result format (${RESULT_FORMATS.join(', ')}; json, yaml: layout, tag, digest, platforms, and progress on stderr)`,
      ).default('text'),
    )
    .option('--version <version>', 'org.opencontainers.image.version (default: package.json version)')
    .option('--revision <sha>', 'org.opencontainers.image.revision (default: git rev-parse HEAD)')
    .option(
      '--source <url>',
      'org.opencontainers.image.source (default: package.json repository, else git remote origin)',
    )
    .option('--user <uid:gid>', 'numeric non-root user', DEFAULT_USER)
    .option(
      '--node <path>',
      'node in the base (default: its entrypoint when that is node, else /usr/local/bin/node)',
    )
    .option(
      '--node-options <flags>',
      'flags for node before /app/main.mjs, space-separated; "" for none (default: a small young generation)',
    )
    .option(
      '--platform <list>',
      'comma-separated platforms to build, e.g. linux/amd64,linux/arm64 (default: all linux)',
    )
    .option('--plain-http', 'pull the base over HTTP (a registry on loopback)', false)
    .addHelpText(
      'after',
      `
The image's entrypoint is node (with the runtime's OPERATOR_NODE_OPTIONS, a small young generation that keeps
an operator's memory down; see --node-options) with /app/main.mjs (arguments, e.g. a Deployment's args, go to the operator), as user ${DEFAULT_USER} in /app, with the OCI labels title, version,
revision, source and licenses. File times and the creation time are SOURCE_DATE_EPOCH (or 0), so two builds
of the same sources and base give the same digest.

Examples:
  $ opkit image build --operator operators/memcached
  $ opkit image build --operator operators/memcached --layout dist/images/memcached-dev -o json
  $ SOURCE_DATE_EPOCH=$(git log -1 --format=%ct) opkit image build --operator . --platform linux/arm64
  $ opkit image push dist/images/memcached-operator quay.io/acme/memcached-operator:0.2.0`,
    )
    .action(async (opts: BuildOptions) => {
      const [{ buildOperatorImage }, { parsePlatforms }, { progressLog, writeResult }] = await Promise.all([
        import('../../pipelines/build-operator-image.js'),
        import('../../images.js'),
        import('../../output.js'),
      ]);
      const { format, layout } = splitOutput(opts);
      const built = await buildOperatorImage({
        operatorDir: opts.operator,
        entry: opts.entry,
        base: opts.base,
        tag: opts.tag,
        out: layout,
        output: { name: '--layout', inputs: [{ name: '--operator', path: opts.operator }] },
        version: opts.version,
        revision: opts.revision,
        source: opts.source,
        user: opts.user,
        node: opts.node,
        ...(opts.nodeOptions !== undefined
          ? { nodeOptions: opts.nodeOptions.split(/\s+/).filter((flag) => flag !== '') }
          : {}),
        platforms: parsePlatforms(opts.platform),
        plainHttp: opts.plainHttp,
        log: progressLog(format),
      });
      // The text lines are the build's progress, already printed.
      await writeResult(
        format,
        {
          reference: `${built.layout}:${built.tag}`,
          layout: built.layout,
          tag: built.tag,
          digest: built.digest,
          mediaType: built.mediaType,
          size: built.size,
          platforms: built.images,
        },
        '',
      );
    });
}
