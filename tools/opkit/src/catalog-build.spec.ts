import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCatalog } from '@opkit/olm/action/build-catalog';
import { afterAll, describe, expect, it } from 'vitest';
import { reportLine } from './cli-error.js';

const scratch = mkdtempSync(join(tmpdir(), 'opkit-catalog-build-'));
const bundles = join(scratch, 'bundles');
mkdirSync(bundles);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// Nine levels of anchors, each aliasing the one before ten times: 10^9 strings once expanded.
const levels = 'abcdefghi';
const laughs = [...levels].map((level, i) => {
  const items = Array<string>(10).fill(i === 0 ? '"lol"' : `*${levels[i - 1]}`);
  return `  ${level}: &${level} [${items.join(', ')}]`;
});

const template = (name: string, lines: readonly string[]): string => {
  const file = join(scratch, name);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
};

describe('catalog build reading a template', () => {
  it('refuses an alias bomb in one line naming the file, writing nothing', async () => {
    const file = template('bomb.yaml', ['schema: olm.semver', 'laughs:', ...laughs]);
    const out = join(scratch, 'out');
    const error = await buildCatalog({
      templates: [file],
      bundlesDir: bundles,
      outDir: out,
      releases: [],
    }).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    expect(reportLine(error as Error)).toBe(
      `${file}: decoding template input: error converting YAML to JSON: yaml: document contains excessive aliasing`,
    );
    expect(existsSync(out)).toBe(false);
  });
});
