import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { CATALOG_BASE_IMAGE } from './workspace-pieces.js';

// The plugin writes the opkit command's default base image into the catalog project without loading the
// command: read the command's source, so a new default there fails here until the plugin follows.
const repo = join(import.meta.dirname, '..', '..', '..', '..');

it('writes the catalog image on the base the opkit command defaults to', () => {
  const source = readFileSync(join(repo, 'tools/opkit/src/pipelines/image-defaults.ts'), 'utf8');
  const declared = /export const DEFAULT_BASE_IMAGE = '([^']+)';/.exec(source);
  expect(declared, 'DEFAULT_BASE_IMAGE in tools/opkit/src/pipelines/image-defaults.ts').not.toBeNull();
  expect(CATALOG_BASE_IMAGE).toBe(declared?.[1]);
});
