// The platforms a generated bundle states, decided in one place for `bundle generate` and `bundle build-all`:
// the command's platform option, else the project's package.json `opkit.platforms`, else none. Both spellings
// of a platform (the `--platforms` flag and `opkit.platforms`) go through the one parser here.
import { parsePlatform } from '@opkit/oci';
import type { ImageOsArch } from '../validation/multiarch.js';
import type { BundlePlatforms } from './generate-bundle.js';

/**
 * Parses one stated platform, `os/architecture[/variant]` in lower case; the variant is allowed and not stated
 * (CSV labels and node affinity name os and architecture only).
 *
 * @throws InputInvalidError naming the value, in one line
 */
export function parseStatedPlatform(text: string): ImageOsArch {
  const { os, architecture } = parsePlatform(text);
  return { os, architecture };
}

/** What a project states about its platforms: `opkit.platforms` of the package.json `file`, if any. */
export interface StatedPlatforms {
  readonly file: string;
  readonly platforms?: readonly ImageOsArch[];
}

/**
 * The platforms a bundle states: `option` when the command gives one, else those the project states, else
 * undefined (the base CSV's labels as written).
 */
export function releasePlatforms(
  option: BundlePlatforms | undefined,
  project: StatedPlatforms,
): BundlePlatforms | undefined {
  if (option !== undefined) return option;
  if (project.platforms === undefined) return undefined;
  return { kind: 'given', platforms: project.platforms, source: `${project.file} opkit.platforms` };
}
