// What an operator project states about its release, for the defaults of `bundle generate`: its checked
// `opkit` record and, for a project without one (one operator-sdk made), the package.json version and the
// package its base CSV in config/manifests/bases is named for.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ImageOsArch } from '../validation/multiarch.js';
import { ActionError } from './errors.js';
import { readOperatorRelease } from './operator-release.js';

/** What a project states; each field undefined when it states nothing about it. */
export interface ProjectRelease {
  /** The file that was read, for messages: `<dir>/package.json`. */
  readonly source: string;
  /** Whether that file exists: a project without one states nothing but maybe its base CSV's package. */
  readonly found: boolean;
  readonly package?: string;
  readonly version?: string;
  readonly channels?: readonly string[];
  /** The operator image repository, without a tag. */
  readonly image?: string;
  readonly replaces?: string;
  /** `opkit.platforms`: what the bundle states when no platform option is given (see `releasePlatforms`). */
  readonly platforms?: readonly ImageOsArch[];
}

const BASE_CSV = /^(.+)\.clusterserviceversion\.yaml$/;

/** The release the project in `operatorDir` states (nothing for a directory without package.json). */
export function readProjectRelease(operatorDir: string): ProjectRelease {
  const source = join(operatorDir, 'package.json');
  const release = readOperatorRelease(operatorDir);
  if (release !== undefined) {
    return {
      source,
      found: true,
      package: release.package,
      version: release.version,
      channels: release.channels,
      image: release.image,
      ...(release.replaces === undefined ? {} : { replaces: release.replaces }),
      ...(release.platforms === undefined ? {} : { platforms: release.platforms }),
    };
  }
  const version = existsSync(source) ? packageVersion(source) : undefined;
  const bases = join(operatorDir, 'config', 'manifests', 'bases');
  const named = existsSync(bases) ? readdirSync(bases).flatMap((file) => BASE_CSV.exec(file)?.[1] ?? []) : [];
  return {
    source,
    found: existsSync(source),
    ...(typeof version === 'string' ? { version } : {}),
    ...(named.length === 1 ? { package: named[0] } : {}),
  };
}

function packageVersion(source: string): unknown {
  try {
    return (JSON.parse(readFileSync(source, 'utf8')) as { version?: unknown } | null)?.version;
  } catch (error) {
    throw new ActionError('OPKIT_ARGUMENT_INVALID', `${source}: ${(error as Error).message}`);
  }
}
