// The figures the CLI states that another package also states: nothing else keeps the two copies equal. Read
// as text, because the CLI's sources do not import the test kit or the Nx plugin.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_BASE_IMAGE } from './pipelines/image-defaults.js';
import { OLM_VERSION, OPM_VERSION } from './targets.js';

const root = join(import.meta.dirname, '..', '..', '..');

/** The string value of `export const <name> = '…'` in a TypeScript file of the repository. */
function stringConstant(file: string, name: string): string | undefined {
  const text = readFileSync(join(root, file), 'utf8');
  return new RegExp(`export const ${name} = '([^']*)'`).exec(text)?.[1];
}

describe('figures stated in two packages agree', () => {
  it('the OLM and opm releases are those the test kit installs and judges with', () => {
    const versions = 'test/cluster/src/toolchain/versions.ts';
    expect(stringConstant(versions, 'OLM_VERSION'), versions).toBe(OLM_VERSION);
    expect(stringConstant(versions, 'OPM_VERSION'), versions).toBe(OPM_VERSION);
  });

  it("the Nx plugin's catalog base is the CLI's default base image", () => {
    const pieces = 'tools/nx-plugin/src/generators/workspace-pieces.ts';
    const stated = stringConstant(pieces, 'CATALOG_BASE_IMAGE');
    // Once the plugin takes the CLI's constant instead of a copy, there is nothing left to compare.
    if (stated === undefined)
      expect(readFileSync(join(root, pieces), 'utf8')).toContain('DEFAULT_BASE_IMAGE');
    else expect(stated, pieces).toBe(DEFAULT_BASE_IMAGE);
  });
});
