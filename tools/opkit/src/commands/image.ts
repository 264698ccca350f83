import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  formatPlatform,
  type ImageSource,
  isImageIndex,
  type Platform,
  parseImageSource,
  parsePlatform,
  parseReference,
  REF_NAME_ANNOTATION,
  RegistryClient,
  readLayoutEntry,
  readLayoutIndex,
} from '@opkit/oci';
import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import { buildOperatorImage, DEFAULT_BASE_IMAGE, DEFAULT_USER } from '../pipelines/build-operator-image.js';

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
  platform?: string;
  plainHttp: boolean;
}

interface PushOptions {
  image?: string;
  tag?: string;
  plainHttp: boolean;
  username?: string;
  password?: string;
}

export function registerImageCommands(program: Command): void {
  const image = program
    .command('image')
    .description('Build operator images, and push and pull OCI images over the distribution API.');
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
    .option('-o, --output <dir>', 'OCI layout to write (default: dist/images/<opkit.package>)')
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
      '--platform <list>',
      'comma-separated platforms to build, e.g. linux/amd64,linux/arm64 (default: all linux)',
    )
    .option('--plain-http', 'pull the base over HTTP (a registry on loopback)', false)
    .addHelpText(
      'after',
      `
The image's entrypoint is node with /app/main.mjs (arguments, e.g. a Deployment's args, go to the operator), as user ${DEFAULT_USER} in /app, with the OCI labels title, version,
revision, source and licenses. File times and the creation time are SOURCE_DATE_EPOCH (or 0), so two builds
of the same sources and base give the same digest.

Examples:
  $ opkit image build --operator operators/memcached
  $ opkit image build --operator operators/memcached --base ./base-layout:node24 --tag memcached-operator:dev
  $ SOURCE_DATE_EPOCH=$(git log -1 --format=%ct) opkit image build --operator . --platform linux/arm64
  $ opkit image push dist/images/memcached-operator quay.io/acme/memcached-operator:0.2.0`,
    )
    .action(async (opts: BuildOptions) => {
      await buildOperatorImage({
        operatorDir: opts.operator,
        entry: opts.entry,
        base: opts.base,
        tag: opts.tag,
        out: opts.output,
        version: opts.version,
        revision: opts.revision,
        source: opts.source,
        user: opts.user,
        node: opts.node,
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
    .option('--password <secret>', 'registry password')
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
    .action(async (layoutArg: string | undefined, referenceArg: string | undefined, opts: PushOptions) => {
      const layout = layoutArg ?? (await defaultLayout());
      const source = await layoutSource(layout, opts.tag);
      const reference = await destination(source, referenceArg, opts.image);
      const password = opts.password ?? process.env.OPKIT_REGISTRY_PASSWORD;
      const client = new RegistryClient({
        plainHttp: opts.plainHttp,
        credentials: opts.username && password ? () => ({ username: opts.username!, password }) : undefined,
        onProgress: (e) => {
          if (e.bytes === e.total) process.stdout.write(`  ${e.digest} ${e.phase} ${e.total} bytes\n`);
        },
      });
      try {
        const content = await readLayoutEntry(source.dir, source.ref);
        process.stdout.write(
          `pushing ${layout} (${isImageIndex(content) ? 'image index' : 'image'}) to ${reference}\n`,
        );
        const result = await client.push(content, reference);
        for (const entry of result.images ?? []) {
          process.stdout.write(`  ${formatPlatform(entry.platform)} ${entry.digest}\n`);
        }
        process.stdout.write(`pushed ${result.reference}@${result.digest}\n`);
      } finally {
        client.close();
      }
    });
}

function parsePlatforms(list: string | undefined): Platform[] | undefined {
  if (list === undefined) return undefined;
  try {
    return list
      .split(',')
      .filter((p) => p.trim() !== '')
      .map(parsePlatform);
  } catch (error) {
    throw new CliError('OPKIT_IMAGE_OPTION_INVALID', `--platform: ${(error as Error).message}`);
  }
}

/** `dist/images/<opkit.package>` of the project in the current directory. */
async function defaultLayout(): Promise<string> {
  let name: string | undefined;
  try {
    const pkg = JSON.parse(await readFile('package.json', 'utf8')) as { opkit?: { package?: string } };
    name = pkg.opkit?.package;
  } catch {
    // no project here: the layout must be named
  }
  if (name === undefined) {
    throw new CliError(
      'OPKIT_IMAGE_LAYOUT_MISSING',
      'name the OCI layout to push (no package.json with opkit.package in the current directory)',
    );
  }
  return join('dist', 'images', name);
}

async function layoutSource(
  layout: string,
  tag: string | undefined,
): Promise<Extract<ImageSource, { kind: 'layout' }>> {
  const source = await parseImageSource(`oci:${layout}`);
  if (source.kind !== 'layout') throw new Error('unreachable: oci: sources are layouts');
  if (tag !== undefined && source.ref !== undefined && tag !== source.ref) {
    throw new CliError(
      'OPKIT_IMAGE_OPTION_INVALID',
      `${layout} names tag ${source.ref} but --tag says ${tag}`,
    );
  }
  return tag === undefined ? source : { ...source, ref: tag };
}

/** The push destination: the argument, --image, or the layout's tag when it is a full reference. */
async function destination(
  source: Extract<ImageSource, { kind: 'layout' }>,
  argument: string | undefined,
  option: string | undefined,
): Promise<string> {
  if (argument !== undefined && option !== undefined && argument !== option) {
    throw new CliError('OPKIT_IMAGE_OPTION_INVALID', `two destinations: ${argument} and --image ${option}`);
  }
  const given = argument ?? option;
  if (given !== undefined) return given;
  const tag = source.ref ?? (await readLayoutTags(source.dir)).at(0);
  if (tag?.includes('/')) {
    try {
      parseReference(tag);
      return tag;
    } catch {
      // not a reference: fall through to the error
    }
  }
  throw new CliError(
    'OPKIT_IMAGE_REFERENCE_MISSING',
    'name the destination: opkit image push <layout> <registry/repository:tag> (or --image)',
  );
}

async function readLayoutTags(dir: string): Promise<string[]> {
  const index = await readLayoutIndex(dir);
  return index.manifests.length === 1
    ? index.manifests.flatMap((m) => m.annotations?.[REF_NAME_ANNOTATION] ?? [])
    : [];
}
