import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import * as root from './index.js';

const src = import.meta.dirname;
const manifest = JSON.parse(readFileSync(join(src, '..', 'package.json'), 'utf8')) as {
  exports: Record<string, Record<string, string>>;
};

/**
 * The documented entry points besides the root: what operator code needs beyond it. Everything else is reached
 * through them or is internal (`src/internal/`).
 */
const SUBPATHS = [
  'cache',
  'client',
  'controller',
  'controllerutil',
  'crd',
  'kinds',
  'manager',
  'metrics',
  'monitoring',
  'rbac',
  'serving',
  'testing',
  'webhook',
];

/** The root's run-time values (its types are not seen here): the alias.go of this runtime. */
const ROOT_VALUES = [
  'EventRecorder',
  'Manager',
  'TerminalError',
  'applyIfChanged',
  'clientFinalizerOps',
  'controllerManagedBy',
  'createLogger',
  'findStatusCondition',
  'ignoreNotFound',
  'isAlreadyExists',
  'isConflict',
  'isNotFound',
  'kind',
  'operatorManager',
  'runOperatorMain',
  'runWithFinalizer',
  'setControllerReference',
  'setStatusConditions',
  'setupSignalHandler',
];

/** Every folder under src with an `index.ts`, as a path relative to src. */
function indexFolders(dir = src, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      const path = prefix ? `${prefix}/${entry.name}` : entry.name;
      const nested = indexFolders(join(dir, entry.name), path);
      return readdirSync(join(dir, entry.name)).includes('index.ts') ? [path, ...nested] : nested;
    });
}

describe('the package exports', () => {
  it('offer the root and the documented subpaths, from their sources and from their build alike', () => {
    expect(Object.keys(manifest.exports).sort()).toEqual(['.', ...SUBPATHS.map((dir) => `./${dir}`)].sort());
    expect(manifest.exports['.']).toEqual({
      '@opkit/source': './src/index.ts',
      types: './dist/index.d.ts',
      default: './dist/index.js',
    });
    for (const dir of SUBPATHS) {
      expect(manifest.exports[`./${dir}`]).toEqual({
        '@opkit/source': `./src/${dir}/index.ts`,
        types: `./dist/${dir}/index.d.ts`,
        default: `./dist/${dir}/index.js`,
      });
    }
  });

  it('keep the root small: what an operator reaches for', () => {
    expect(Object.keys(root).sort()).toEqual([...ROOT_VALUES].sort());
  });

  it('give a name exported by two entry points as the same value', async () => {
    const seen = new Map<string, unknown>(Object.entries(root));
    for (const dir of SUBPATHS) {
      const entry: Record<string, unknown> = await import(join(src, dir, 'index.ts'));
      for (const [name, value] of Object.entries(entry)) {
        if (seen.has(name)) expect(value, `${name} of ./${dir}`).toBe(seen.get(name));
        seen.set(name, value);
      }
    }
  });

  it('open every folder’s index.ts with a comment saying what the folder is for', () => {
    for (const dir of indexFolders()) {
      const text = readFileSync(join(src, dir, 'index.ts'), 'utf8');
      expect(text.startsWith('//') || text.startsWith('/*'), `${dir}/index.ts`).toBe(true);
    }
  });

  it('export nothing from src/internal but through the entry points', () => {
    for (const target of Object.values(manifest.exports)) {
      expect(target['@opkit/source']).not.toMatch(/\/internal\//);
    }
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
