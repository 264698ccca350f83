import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { opmBinary } from '@opkit/test-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CatalogFormat, loadCatalog, serializeCatalog, writeCatalog } from '../../src/catalog/index.js';
import { renderMermaid } from '../../src/graph/index.js';
import { CORPUS } from './corpus-cases.js';
import { opmRun } from './opm-helpers.js';

const CORPUS_DIR = join(import.meta.dirname, 'corpus');
const VALID = CORPUS.filter((c) => c.valid).map((c) => c.name);
let opm: string;
let work: string;

beforeAll(async () => {
  opm = await opmBinary();
  work = await mkdtemp(join(tmpdir(), 'opkit-catalog-writer-'));
}, 1_800_000);

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

async function readTree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else out[relative(dir, p)] = await readFile(p, 'utf8');
    }
  };
  await walk(dir);
  return out;
}

describe('serializeCatalog writes the bytes opm render writes', () => {
  for (const format of ['json', 'yaml'] as const satisfies CatalogFormat[]) {
    it.each(VALID)(`%s as ${format}`, async (name) => {
      const dir = join(CORPUS_DIR, name);
      const expected = await opmRun(opm, ['render', dir, '-o', format]);
      expect(serializeCatalog(await loadCatalog(dir), { format })).toBe(expected);
    });
  }
});

describe('writeCatalog writes the directory opm migrate writes', () => {
  for (const format of ['json', 'yaml'] as const satisfies CatalogFormat[]) {
    it.each(VALID)(`%s as ${format}`, async (name) => {
      const dir = join(CORPUS_DIR, name);
      const theirs = join(work, `${name}-${format}-opm`);
      const ours = join(work, `${name}-${format}-ours`);
      await opmRun(opm, ['migrate', dir, theirs, '-o', format]);
      await writeCatalog(ours, await loadCatalog(dir), { format });
      expect(await readTree(ours)).toEqual(await readTree(theirs));
    });
  }
});

describe('renderMermaid draws what opm alpha render-graph draws', () => {
  it.each(VALID)('%s', async (name) => {
    const dir = join(CORPUS_DIR, name);
    const catalog = await loadCatalog(dir);
    expect(renderMermaid(catalog)).toBe(await opmRun(opm, ['alpha', 'render-graph', dir]));
    expect(renderMermaid(catalog, { drawV0Semantics: true })).toBe(
      await opmRun(opm, ['alpha', 'render-graph', '--draw-v0-semantics', dir]),
    );
  });

  it('filters by package like --package-name', async () => {
    const dir = join(CORPUS_DIR, 'valid-nested-packages');
    const catalog = await loadCatalog(dir);
    expect(renderMermaid(catalog, { packageName: 'bar' })).toBe(
      await opmRun(opm, ['alpha', 'render-graph', '-p', 'bar', dir]),
    );
  });
});
