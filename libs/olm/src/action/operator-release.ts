import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ImageOsArch } from '../validation/multiarch.js';
import { ActionError } from './errors.js';
import { checkPackageName } from './package-name.js';
import { parseStatedPlatform } from './release-platforms.js';

/**
 * An operator's release identity, stated once in the `opkit` field of its package.json beside `version`:
 * the bundle `bundle build-all` generates carries it, and `catalog build --operators` holds the catalog to it.
 */
export interface OperatorRelease {
  /** The package.json it was read from, for messages. */
  readonly manifest: string;
  readonly operatorDir: string;
  /** The operator's current version: the bundle `bundle build-all` generates. */
  readonly version: string;
  /** The OLM package name. */
  readonly package: string;
  /** The channels the bundle announces; the first is its default channel. */
  readonly channels: readonly string[];
  /** Operator image repository; the tag is the version. */
  readonly image: string;
  /** The version the current one replaces. */
  readonly replaces?: string;
  /**
   * The platforms the release is built for (`os/architecture`), which its CSV states when no platform option
   * is given; `bundle validate --select-optional name=multiarch` checks them against the images.
   */
  readonly platforms?: readonly ImageOsArch[];
}

/** The `opkit` field as package.json holds it (other keys, such as `resources`, belong to other tools). */
interface ReleaseField {
  readonly package: string;
  readonly channels: readonly string[];
  readonly image: string;
  readonly replaces?: string;
  readonly platforms?: readonly ImageOsArch[];
}

/** The release identity of every operator project under `operatorsDir` whose package.json has an `opkit` field. */
export function readOperatorReleases(operatorsDir: string): OperatorRelease[] {
  if (!existsSync(operatorsDir))
    throw new ActionError('OPKIT_ARGUMENT_INVALID', `--operators ${operatorsDir}: no such directory`);
  const releases: OperatorRelease[] = [];
  for (const name of readdirSync(operatorsDir)) {
    const operatorDir = join(operatorsDir, name);
    const release = readOperatorRelease(operatorDir);
    if (release !== undefined) releases.push(release);
  }
  return releases;
}

/**
 * The release identity one operator project states in its package.json (`version` and the `opkit` field):
 * what `bundle generate`, `bundle image` and the other commands take when no flag overrides it. Undefined
 * when the directory has no package.json or it has no `opkit` field.
 *
 * @throws ActionError `OPKIT_ARGUMENT_INVALID` naming the file and the field that is missing or malformed
 */
export function readOperatorRelease(operatorDir: string): OperatorRelease | undefined {
  const manifest = join(operatorDir, 'package.json');
  if (!existsSync(manifest)) return undefined;
  const release = releaseOf(manifest, parseManifest(manifest));
  if (release === undefined) return undefined;
  const { version, field } = release;
  return {
    manifest,
    operatorDir,
    version,
    package: field.package,
    channels: field.channels,
    image: field.image,
    ...(field.replaces !== undefined ? { replaces: field.replaces } : {}),
    ...(field.platforms !== undefined ? { platforms: field.platforms } : {}),
  };
}

function parseManifest(manifest: string): unknown {
  try {
    return JSON.parse(readFileSync(manifest, 'utf8')) as unknown;
  } catch (error) {
    throw new ActionError('OPKIT_ARGUMENT_INVALID', `${manifest}: ${(error as Error).message}`);
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isName = (value: unknown): value is string => typeof value === 'string' && value !== '';

/**
 * The version and the `opkit` field of a package.json, checked: undefined when it has no `opkit` field.
 *
 * @throws ActionError `OPKIT_ARGUMENT_INVALID` naming the file and the field that is missing or malformed
 */
function releaseOf(manifest: string, pkg: unknown): { version: string; field: ReleaseField } | undefined {
  if (!isObject(pkg) || pkg.opkit === undefined) return undefined;
  const invalid = (field: string, expected: string) =>
    new ActionError('OPKIT_ARGUMENT_INVALID', `${manifest}: ${field}: expected ${expected}`);
  const { opkit, version } = pkg;
  if (!isObject(opkit)) throw invalid('opkit', 'an object');
  if (!isName(version)) throw invalid('version', 'a version such as 0.1.0');
  if (!isName(opkit.package)) throw invalid('opkit.package', 'the OLM package name');
  // It names the CSV, the bundle directory and the image layouts: a path such as `../x` is no package name.
  checkPackageName(opkit.package, `${manifest}: opkit.package`);
  if (!Array.isArray(opkit.channels) || opkit.channels.length === 0 || !opkit.channels.every(isName))
    throw invalid('opkit.channels', 'a non-empty list of channel names');
  if (!isName(opkit.image)) throw invalid('opkit.image', 'the operator image repository');
  if (opkit.replaces !== undefined && !isName(opkit.replaces))
    throw invalid('opkit.replaces', 'the version the current one replaces');
  const platforms = opkit.platforms === undefined ? undefined : statedPlatforms(opkit.platforms, manifest);
  return {
    version,
    field: {
      package: opkit.package,
      channels: opkit.channels,
      image: opkit.image,
      ...(opkit.replaces === undefined ? {} : { replaces: opkit.replaces }),
      ...(platforms === undefined ? {} : { platforms }),
    },
  };
}

/** `opkit.platforms`: a non-empty list of platforms, each as `--platforms` takes it. */
function statedPlatforms(value: unknown, manifest: string): ImageOsArch[] {
  const invalid = (reason: string) =>
    new ActionError('OPKIT_ARGUMENT_INVALID', `${manifest}: opkit.platforms: ${reason}`);
  if (!Array.isArray(value) || value.length === 0)
    throw invalid('expected a non-empty list of os/architecture, e.g. ["linux/amd64", "linux/arm64"]');
  return value.map((item) => {
    if (typeof item !== 'string')
      throw invalid(`expected os/architecture strings, not ${JSON.stringify(item)}`);
    try {
      return parseStatedPlatform(item);
    } catch (error) {
      throw invalid((error as Error).message);
    }
  });
}
