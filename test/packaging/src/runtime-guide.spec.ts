import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { guideModules, runtimeHelpersInUse, typeErrors } from './runtime-guide.js';
import { findWorkspaceRoot } from './workspace.js';

const root = findWorkspaceRoot();
const readme = readFileSync(join(root, 'libs', 'controller-runtime', 'README.md'), 'utf8');

describe('the controller runtime README’s helper guide', () => {
  it('has examples that compile against the runtime as it is', () => {
    const modules = guideModules(readme, 'Helper guide');
    expect(modules.map((m) => m.name)).toContain('main.ts');
    expect(typeErrors(root, join(root, 'test', 'packaging'), modules)).toEqual([]);
  }, 120_000);

  it('reports a wrong example by its README line', () => {
    const wrong = [
      '## Helper guide',
      '',
      '```ts',
      '// broken.ts',
      "const n: number = 'text';",
      'export { n };',
      '```',
      '',
    ];
    const errors = typeErrors(
      root,
      join(root, 'test', 'packaging'),
      guideModules(wrong.join('\n'), 'Helper guide'),
    );
    expect(errors).toEqual(["README.md:5 (broken.ts): Type 'string' is not assignable to type 'number'."]);
  }, 60_000);

  it('refuses an example that does not say which module it is', () => {
    expect(() => guideModules('## Helper guide\n```ts\nconst a = 1;\n```\n', 'Helper guide')).toThrow(
      'README.md:3: a guide example opens with "// <module>.ts"',
    );
  });
});

describe('the helper guide’s reach', () => {
  it('names every runtime helper the generators’ templates and the operators import', () => {
    const section = readme.slice(readme.indexOf('## Helper guide'), readme.indexOf('## Concepts'));
    const missing = [...runtimeHelpersInUse(root)]
      .filter(([name]) => !new RegExp(`\\b${name}\\b`).test(section))
      .map(([name, files]) => `${name} (${files[0]})`);
    expect(missing, 'add these to the Helper guide of libs/controller-runtime/README.md').toEqual([]);
  });
});
