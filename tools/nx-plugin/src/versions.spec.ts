import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pluginVersionOf, WORKSPACE_DEPENDENCIES, WORKSPACE_DEV_DEPENDENCIES } from './versions.js';

// The plugin's version table is what the workspace it was released from holds: a bump of an opkit package or
// of a tool in this repository without the plugin's package.json following fails here.

const repo = join(import.meta.dirname, '..', '..', '..');
const manifest = (dir: string) =>
  JSON.parse(readFileSync(join(repo, dir, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };

describe('the version table', () => {
  it('holds each opkit package at exactly its version in this workspace', () => {
    for (const dir of [
      'libs/controller-runtime',
      'libs/controller-tools',
      'tools/opkit',
      'test/cluster',
      'tools/nx-plugin',
    ]) {
      const { name, version } = manifest(dir);
      expect(pluginVersionOf(name), name).toBe(version);
    }
  });

  it('holds the tools at the ranges this workspace builds and tests with', () => {
    const root = manifest('.').devDependencies ?? {};
    for (const name of ['nx', 'vitest', 'typescript', '@biomejs/biome', 'tsx', '@types/node']) {
      expect(pluginVersionOf(name), name).toBe(root[name]);
    }
    expect(pluginVersionOf('@sinclair/typebox')).toBe(
      manifest('operators/memcached').dependencies?.['@sinclair/typebox'],
    );
  });

  it('knows every package a generated workspace lists', () => {
    for (const name of [...WORKSPACE_DEPENDENCIES, ...WORKSPACE_DEV_DEPENDENCIES])
      expect(pluginVersionOf(name)).not.toBe('');
    expect(() => pluginVersionOf('left-pad')).toThrow(
      '@opkit/nx has no version of left-pad in its package.json',
    );
  });

  it('is the version create-opkit depends on, so npm create opkit@<v> writes the plugin released with it', () => {
    expect(manifest('tools/create-opkit').dependencies?.['@opkit/nx']).toBe(
      manifest('tools/nx-plugin').version,
    );
  });
});
