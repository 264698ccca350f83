import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import * as root from './index.js';
import * as objects from './object.js';

const src = import.meta.dirname;
const manifest = JSON.parse(readFileSync(join(src, '..', 'package.json'), 'utf8')) as {
  exports: Record<string, Record<string, string>>;
};

/** The module directories with an `index.ts`: each is meant to be a subpath of the package. */
const moduleDirectories = readdirSync(src, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && readdirSync(join(src, entry.name)).includes('index.ts'))
  .map((entry) => entry.name)
  .sort();

describe('the package exports', () => {
  it('offer every module directory as a subpath, from its sources and from its build alike', () => {
    const subpaths = Object.keys(manifest.exports).filter((key) => key !== '.');
    expect(subpaths.sort()).toEqual(moduleDirectories.map((dir) => `./${dir}`));
    for (const dir of moduleDirectories) {
      expect(manifest.exports[`./${dir}`]).toEqual({
        '@opkit/source': `./src/${dir}/index.ts`,
        types: `./dist/${dir}/index.d.ts`,
        default: `./dist/${dir}/index.js`,
      });
    }
  });

  it('give at the root only what a subpath (or the object types) also exports, as the same value', async () => {
    const modules: Record<string, unknown>[] = [objects];
    for (const dir of moduleDirectories) {
      const entry = join(src, dir, 'index.ts');
      modules.push(await import(entry));
    }
    const elsewhere = Object.entries(root).filter(
      ([name, value]) => !modules.some((module) => module[name] === value),
    );
    expect(elsewhere).toEqual([]);
  });
});

describe('importing the package', () => {
  it('does not load Node’s undici (its WebSocket and fetch), which the runtime never uses', async () => {
    // An ES module import of node:http evaluates the module's WebSocket exports, which load undici: 14 MiB.
    const script = `await import('@opkit/controller-runtime');
      console.log(JSON.stringify(process.moduleLoadList.filter((m) => m.includes('undici'))));`;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--conditions=@opkit/source', '--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: join(src, '..') },
    );
    expect(JSON.parse(stdout)).toEqual([]);
  }, 60_000);
});
