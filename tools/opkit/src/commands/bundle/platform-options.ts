// The platform options of the commands that generate bundles (`bundle generate`, `generate bundle`,
// `bundle build-all`) and of `bundle validate`'s multiarch check: which platforms the CSV states, and where the
// images it names are read from.

import type { RegistryClient } from '@opkit/oci';
import type { BundlePlatforms } from '@opkit/olm/action/generate-bundle';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { CliError } from '../../cli-error.js';
import { commaList } from '../options.js';

/** The platform flags as commander parses them. */
export interface PlatformFlags {
  platforms?: string[];
  platformsFrom?: 'registry' | 'layout';
  imageLayout?: Map<string, string>;
  unreadableImages: 'fail' | 'keep';
}

/** `--image-layout <reference>=<layout-dir>[:<tag>]`, repeatable: the layouts read in place of those images. */
export function imageLayouts(value: string, previous: Map<string, string> | undefined): Map<string, string> {
  const at = value.indexOf('=');
  if (at <= 0 || at === value.length - 1)
    throw new InvalidArgumentError(
      `${value}: give <image reference>=<layout-dir>[:<tag>], e.g. registry.example/op:1.0.0=dist/images/op:1.0.0.`,
    );
  return new Map(previous).set(value.slice(0, at), value.slice(at + 1));
}

/** Adds the platform options of a bundle-generating command. */
export function addPlatformOptions(command: Command): Command {
  return command
    .option(
      '--platforms <list>',
      "platforms the CSV states (its operatorframework.io/arch.* and os.* labels and the Deployments' node affinity), e.g. linux/amd64,linux/arm64 (default: opkit.platforms of package.json)",
      commaList,
    )
    .addOption(
      new Option(
        '--platforms-from <where>',
        'state the platforms every image of the CSV provides, read from their registries or only from --image-layout layouts',
      ).choices(['registry', 'layout']),
    )
    .option(
      '--image-layout <reference=layout>',
      'read the image <reference> from this OCI layout (<dir> or <dir>:<tag>), not its registry; repeatable',
      imageLayouts,
    )
    .addOption(
      new Option(
        '--unreadable-images <what>',
        "with --platforms-from, an image that cannot be read: fail, or keep the base CSV's labels (one line says so)",
      )
        .choices(['fail', 'keep'])
        .default('fail'),
    );
}

/** What the platform flags ask of the bundle step: nothing (the base CSV's labels as written), or platforms. */
export async function bundlePlatforms(
  flags: PlatformFlags,
  registry: () => RegistryClient,
): Promise<BundlePlatforms | undefined> {
  if (flags.platforms !== undefined && flags.platformsFrom !== undefined)
    throw new CliError('OPKIT_ARGUMENT_INVALID', 'give --platforms or --platforms-from, not both');
  if (flags.platforms !== undefined) {
    // The one parser of package.json's opkit.platforms: lower-case os/architecture[/variant].
    const { parseStatedPlatform } = await import('@opkit/olm/action/release-platforms');
    const platforms = flags.platforms.map((item) => {
      try {
        return parseStatedPlatform(item);
      } catch (error) {
        throw new CliError('OPKIT_ARGUMENT_INVALID', `--platforms: ${(error as Error).message}`);
      }
    });
    return { kind: 'given', platforms };
  }
  if (flags.platformsFrom === undefined) {
    if (flags.imageLayout !== undefined)
      throw new CliError('OPKIT_ARGUMENT_INVALID', '--image-layout needs --platforms-from');
    return undefined;
  }
  return {
    kind: 'images',
    sources: {
      ...(flags.platformsFrom === 'registry' ? { registry } : {}),
      ...(flags.imageLayout === undefined ? {} : { layouts: flags.imageLayout }),
    },
    unreadable: flags.unreadableImages,
  };
}

/** The help text of the platform options. */
export const PLATFORM_NOTES = `Platforms: by default the CSV states the platforms package.json opkit.platforms lists; without them its
operatorframework.io/arch.* and os.* labels are the base CSV's, as written. --platforms states the given ones; --platforms-from states those every image of the CSV provides (manager,
other containers, relatedImages: a Pod runs whole, so only the platforms they all have), read from their
registries (docker's and podman's login credentials, each sent to its own registry only) or, with layout,
only from the OCI layouts --image-layout names. Either adds the labels and a required node affinity on
kubernetes.io/arch and kubernetes.io/os to the CSV's Deployments (config/ stays as written), and checks each
label the base CSV has against the images. An image that cannot be read stops the command naming it, unless
--unreadable-images keep, which writes the base CSV's labels and says so in one line.`;
