import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';

// Users bundle the library into their own programs. esbuild, bundling to an ES module with `yaml` left to
// node_modules, turns the library's `require('yaml')` into a helper that throws unless the program defines a
// `require` of its own: the library must not depend on that.
describe('the YAML library in a user bundle', () => {
  const workspace = join(import.meta.dirname, '..', '..', '..');
  // Inside the workspace's node_modules, so the bundle resolves `yaml` as an installed program would.
  const dir = mkdtempSync(join(workspace, 'node_modules', '.opkit-yaml-bundle-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads YAML from an ES module bundle with yaml external and no require banner', async () => {
    const outfile = join(dir, 'reader.mjs');
    await build({
      stdin: {
        contents: [
          "import { parseCatalogContent } from '@opkit/olm/catalog';",
          "const catalog = parseCatalogContent('schema: olm.package\\nname: from-yaml\\n', 'catalog.yaml');",
          'console.log(catalog.packages[0].name);',
        ].join('\n'),
        resolveDir: import.meta.dirname,
        loader: 'ts',
      },
      outfile,
      bundle: true,
      format: 'esm',
      platform: 'node',
      conditions: ['@opkit/source'],
      external: ['yaml'],
      logLevel: 'silent',
    });
    const run = spawnSync(process.execPath, [outfile], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('from-yaml');
  });
});
