import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as root from './index.js';

const src = import.meta.dirname;
const manifest = JSON.parse(readFileSync(join(src, '..', 'package.json'), 'utf8')) as {
  exports: Record<string, Record<string, string>>;
};

/** The module directories: each is a subpath of the package. */
const moduleDirectories = readdirSync(src, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

describe('the package exports', () => {
  it('offer every module directory as a subpath, from its sources and from its build alike', () => {
    expect(Object.keys(manifest.exports).sort()).toEqual(['.', ...moduleDirectories.map((d) => `./${d}`)]);
    for (const dir of moduleDirectories) {
      expect(manifest.exports[`./${dir}`]).toEqual({
        '@opkit/source': `./src/${dir}/index.ts`,
        types: `./dist/${dir}/index.d.ts`,
        default: `./dist/${dir}/index.js`,
      });
    }
  });

  it('give at the root exactly the names of the subpaths, as the same values', async () => {
    const names = new Map<string, unknown>();
    for (const dir of moduleDirectories) {
      for (const [name, value] of Object.entries(await import(join(src, dir, 'index.ts'))))
        names.set(name, value);
    }
    expect(Object.keys(root).sort()).toEqual([...names.keys()].sort());
    for (const [name, value] of Object.entries(root)) expect(value, name).toBe(names.get(name));
  });
});
