// The work of `opkit image push` and the option parsing of `opkit image build`: loaded by their actions only.
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
  readLayoutEntry,
  readLayoutIndex,
} from '@opkit/oci';
import { CliError } from './cli-error.js';
import { progressLog, type ResultFormat, writeResult } from './output.js';
import { cliRegistryClient, type LoginOptions } from './registry-client.js';

/** The options of `opkit image push`. */
export interface PushOptions {
  image?: string;
  tag?: string;
  plainHttp: boolean;
  username?: string;
  password?: string;
  output: ResultFormat;
}

/** `opkit image push [layout] [reference]`: an image or image index from an OCI layout to a registry. */
export async function pushLayout(
  layoutArg: string | undefined,
  referenceArg: string | undefined,
  opts: PushOptions,
): Promise<void> {
  const layout = layoutArg ?? (await defaultLayout());
  const source = await layoutSource(layout, opts.tag);
  const reference = await destination(source, referenceArg, opts.image);
  // With -o json or yaml, stdout holds the result only; progress goes to stderr.
  const progress = progressLog(opts.output);
  const client = cliRegistryClient({
    plainHttp: opts.plainHttp,
    ...login(opts),
    onProgress: (e) => {
      if (e.bytes === e.total) progress(`  ${e.digest} ${e.phase} ${e.total} bytes`);
    },
  });
  try {
    const content = await readLayoutEntry(source.dir, source.ref);
    progress(`pushing ${layout} (${isImageIndex(content) ? 'image index' : 'image'}) to ${reference}`);
    const result = await client.push(content, reference);
    const text = (result.images ?? [])
      .map((entry) => `  ${formatPlatform(entry.platform)} ${entry.digest}\n`)
      .concat(`pushed ${result.reference}@${result.digest}\n`)
      .join('');
    await writeResult(opts.output, result, text);
  } finally {
    client.close();
  }
}

/** The options of `opkit image pull`. */
export interface PullOptions {
  platform?: string;
  tag?: string;
  plainHttp: boolean;
  username?: string;
  password?: string;
  output: ResultFormat;
}

/**
 * `opkit image pull <reference> <layout>`: an image, or an image index with the platforms asked for (one
 * platform: that image alone, as `docker pull --platform` gives), into an OCI layout tagged with the reference.
 */
export async function pullToLayout(reference: string, layout: string, opts: PullOptions): Promise<void> {
  parseReference(reference); // a malformed reference is refused before anything is fetched
  const platforms = parsePlatforms(opts.platform);
  if (platforms?.length === 0)
    throw new CliError('OPKIT_IMAGE_OPTION_INVALID', '--platform: no platform named');
  const tag = opts.tag ?? reference;
  const client = cliRegistryClient({
    plainHttp: opts.plainHttp,
    ...login(opts),
    onProgress: (e) => process.stderr.write(`  ${e.digest} ${e.phase} ${e.total} bytes\n`),
  });
  try {
    process.stderr.write(`pulling ${reference}\n`);
    // Blobs stream into the layout as they come, checked against their digests on the way.
    const pulled = await client.pullToLayout(reference, layout, {
      tag,
      guard: { name: '<layout>' },
      ...(platforms?.length === 1
        ? { platform: platforms[0] }
        : {
            platforms: (p: Platform) =>
              platforms === undefined || platforms.some((w) => formatPlatform(w) === formatPlatform(p)),
          }),
    });
    const images = pulled.images.map((entry) => ({
      platform: formatPlatform(entry.platform),
      digest: entry.digest,
    }));
    const result = { reference, digest: pulled.digest, mediaType: pulled.mediaType, layout, tag, images };
    const text = images
      .map((entry) => `  ${entry.platform} ${entry.digest}\n`)
      .concat(`pulled ${reference}@${pulled.digest} into ${layout}:${tag}\n`)
      .join('');
    await writeResult(opts.output, result, text);
  } finally {
    client.close();
  }
}

function login(opts: { username?: string; password?: string }): LoginOptions {
  return {
    ...(opts.username === undefined ? {} : { username: opts.username }),
    ...(opts.password === undefined ? {} : { password: opts.password }),
  };
}

export function parsePlatforms(list: string | undefined): Platform[] | undefined {
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

/** `dist/images/<opkit.package>` of the project in the current directory, its `opkit` record checked. */
async function defaultLayout(): Promise<string> {
  const { readOperatorRelease } = await import('@opkit/olm/action/operator-release');
  const release = readOperatorRelease('.');
  if (release === undefined) {
    throw new CliError(
      'OPKIT_IMAGE_LAYOUT_MISSING',
      'name the OCI layout to push (no package.json with opkit.package in the current directory)',
    );
  }
  return join('dist', 'images', release.package);
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
