import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ActionError } from './errors.js';

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
}

/** The `opkit` field as package.json holds it. */
interface ReleaseField {
  readonly package: string;
  readonly channels: readonly string[];
  readonly image: string;
  readonly replaces?: string;
}

/** The release identity of every operator project under `operatorsDir` whose package.json has an `opkit` field. */
export function readOperatorReleases(operatorsDir: string): OperatorRelease[] {
  if (!existsSync(operatorsDir))
    throw new ActionError('OPKIT_ARGUMENT_INVALID', `--operators ${operatorsDir}: no such directory`);
  const releases: OperatorRelease[] = [];
  for (const name of readdirSync(operatorsDir)) {
    const operatorDir = join(operatorsDir, name);
    const manifest = join(operatorDir, 'package.json');
    if (!existsSync(manifest)) continue;
    const pkg = parseManifest(manifest);
    if (!pkg.opkit) continue;
    const { package: packageName, channels, image, replaces } = pkg.opkit;
    releases.push({
      manifest,
      operatorDir,
      version: pkg.version,
      package: packageName,
      channels,
      image,
      ...(replaces !== undefined ? { replaces } : {}),
    });
  }
  return releases;
}

function parseManifest(manifest: string): { version: string; opkit?: ReleaseField } {
  try {
    return JSON.parse(readFileSync(manifest, 'utf8')) as { version: string; opkit?: ReleaseField };
  } catch (error) {
    throw new ActionError('OPKIT_ARGUMENT_INVALID', `${manifest}: ${(error as Error).message}`);
  }
}
