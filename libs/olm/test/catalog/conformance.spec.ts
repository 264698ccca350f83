import { join } from 'node:path';
import { opmBinary } from '@opkit/test-cluster';
import { beforeAll, describe, expect, it } from 'vitest';
import { formatValidationResults, validateCatalogDir } from '../../src/catalog/index.js';
import { CORPUS } from './corpus-cases.js';
import { normalizeOpmMessage, opmValidate } from './opm-helpers.js';

const CORPUS_DIR = join(import.meta.dirname, 'corpus');
let opm: string;

beforeAll(async () => {
  opm = await opmBinary();
}, 1_800_000);

describe('validateCatalog agrees with opm validate v1.73.0 on the corpus', () => {
  it.each(CORPUS.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const dir = join(CORPUS_DIR, c.name);
    const theirs = await opmValidate(opm, dir);
    const results = await validateCatalogDir(dir);
    const ours = formatValidationResults(results);

    expect(theirs.passed, `opm: ${theirs.message}`).toBe(c.valid);
    expect(results.filter((r) => r.level === 'error').length === 0, ours).toBe(c.valid);
    if (c.valid) return;
    expect(theirs.message).toContain(c.phrase);
    expect(results.map((r) => r.message).join('\n')).toContain(c.phrase);
    expect(normalizeOpmMessage(ours)).toEqual(normalizeOpmMessage(theirs.message));
  });
});
