import type { Command } from 'commander';
import type { PullOptions, PushOptions } from '../images.js';
import { DEFAULT_BASE_IMAGE, DEFAULT_USER } from '../pipelines/image-defaults.js';
import { examples, OUTPUT_FORMAT_FLAGS, outputFormatOption } from './options.js';

interface BuildOptions {
  operator: string;
  entry: string;
  base: string;
  tag?: string;
  output?: string;
  version?: string;
  revision?: string;
  source?: string;
  user: string;
  node?: string;
  nodeOptions?: string;
  platform?: string;
  plainHttp: boolean;
}

export function registerImageCommands(program: Command): void {
  const image = program
    .command('image')
    .description('Build operator images, and push and pull OCI images over the distribution API.')
    .addHelpText(
      'after',
      examples(
        [
          'opkit image build --operator operators/memcached',
          'opkit image push dist/images/memcached-operator quay.io/acme/memcached-operator:0.2.0',
          'opkit image pull quay.io/acme/memcached-operator:0.2.0 ./memcached-layout',
        ],
        `Registry credentials come from docker's and podman's login files (docker login, podman login),
including credential helpers; HTTPS_PROXY, HTTP_PROXY and NO_PROXY are honoured.`,
      ),
    );
  image
    .command('build')
    .description(
      'Build an operator image without Docker: the entry bundled into /app/main.mjs on a Node base image, ' +
        'one image per linux platform of the base, written to an OCI layout.',
    )
    .requiredOption('--operator <dir>', 'operator project (package.json with an `opkit` field)')
    .option('--entry <file>', 'entry module, relative to the operator', 'src/main.ts')
    .option('--base <image>', 'base image: registry reference, or OCI layout dir[:tag]', DEFAULT_BASE_IMAGE)
    .option('--tag <ref>', 'tag in the layout (default: <opkit.image>:<version>)')
    .option(
      '-o, --output <dir>',
      'OCI layout to write: new, empty or an earlier layout (default: dist/images/<opkit.package>)',
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
  $ opkit image build --operator operators/memcached --base ./base-layout:node24 --tag memcached-operator:dev
  $ SOURCE_DATE_EPOCH=$(git log -1 --format=%ct) opkit image build --operator . --platform linux/arm64
  $ opkit image push dist/images/memcached-operator quay.io/acme/memcached-operator:0.2.0`,
    )
    .action(async (opts: BuildOptions) => {
      const [{ buildOperatorImage }, { parsePlatforms }] = await Promise.all([
        import('../pipelines/build-operator-image.js'),
        import('../images.js'),
      ]);
      await buildOperatorImage({
        operatorDir: opts.operator,
        entry: opts.entry,
        base: opts.base,
        tag: opts.tag,
        out: opts.output,
        output: { name: '--output', inputs: [{ name: '--operator', path: opts.operator }] },
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
        log: (line) => process.stdout.write(`${line}\n`),
      });
    });
  image
    .command('push [layout] [reference]')
    .description(
      'Push an image or a multi-platform image from an OCI layout (blobs first, each platform’s manifest, ' +
        'then the index under the tag; chunked uploads; retries).',
    )
    .option('--image <ref>', 'destination, instead of the <reference> argument')
    .option('--tag <tag>', 'image inside the layout (also as <layout>:<tag>; default: its only one)')
    .option('--plain-http', 'talk HTTP, not HTTPS (a registry on loopback)', false)
    .option('--username <name>', 'registry user (with --password or OPKIT_REGISTRY_PASSWORD)')
    .option('--password <secret>', 'registry password (default: docker login’s credentials)')
    .addOption(
      outputFormatOption(OUTPUT_FORMAT_FLAGS, ['text', 'json'], 'result format (json: digests, platforms)'),
    )
    .addHelpText(
      'after',
      `
<layout> defaults to dist/images/<opkit.package> of the package.json in the current directory, and the
destination to the layout's tag when that is a full reference (as \`opkit image build\` writes it).

Examples:
  $ opkit image push dist/images/memcached-operator quay.io/acme/memcached-operator:0.2.0
  $ opkit image push dist/images/opkit-catalog:latest 127.0.0.1:5000/opkit/catalog:latest --plain-http
  $ nx run memcached:push --image=quay.io/acme/memcached-operator:0.2.0`,
    )
    .action(async (layout: string | undefined, reference: string | undefined, opts: PushOptions) => {
      const { pushLayout } = await import('../images.js');
      await pushLayout(layout, reference, opts);
    });
  image
    .command('pull <reference> <layout>')
    .description(
      'Pull an image or a multi-platform image into an OCI layout (the inverse of image push), ' +
        'verifying every manifest and blob against its digest and size.',
    )
    .option(
      '--platform <list>',
      'comma-separated platforms to keep of an image index, e.g. linux/arm64 (one: that image alone; default: all)',
    )
    .option('--tag <tag>', 'tag inside the layout (default: <reference> as given)')
    .option('--plain-http', 'talk HTTP, not HTTPS (a registry on loopback)', false)
    .option('--username <name>', 'registry user (with --password or OPKIT_REGISTRY_PASSWORD)')
    .option('--password <secret>', 'registry password (default: docker login’s credentials)')
    .addOption(
      outputFormatOption(OUTPUT_FORMAT_FLAGS, ['text', 'json'], 'result format (json: digests, platforms)'),
    )
    .addHelpText(
      'after',
      `
<layout> is new, empty or an earlier layout, never the current directory; of an earlier one only oci-layout,
index.json and blobs/ are replaced (written beside it, then renamed), other files stay. \`opkit image push
<layout>\` pushes it back, to the reference it was pulled from unless another is named.

Examples:
  $ opkit image pull quay.io/acme/memcached-operator:0.2.0 ./memcached-layout
  $ opkit image pull docker.io/library/busybox:1.37 ./busybox --platform linux/arm64
  $ opkit image pull 127.0.0.1:5000/opkit/catalog:latest ./catalog --plain-http --tag latest`,
    )
    .action(async (reference: string, layout: string, opts: PullOptions) => {
      const { pullToLayout } = await import('../images.js');
      await pullToLayout(reference, layout, opts);
    });
}
