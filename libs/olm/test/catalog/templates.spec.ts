import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { opmBinary } from '@opkit/test-cluster';
import { beforeAll, describe, expect, it } from 'vitest';
import { renderTemplate, serializeCatalog } from '../../src/catalog/index.js';
import { opmRun } from './opm-helpers.js';

// `opm alpha render-template <file>` (opm v1.73.0) against renderTemplate on templates that need no bundle image.

const run = promisify(execFile);
const TEMPLATES = join(import.meta.dirname, 'templates');
let opm: string;

beforeAll(async () => {
  opm = await opmBinary();
}, 1_800_000);

/** opm's error line, without the `Error: rendering template: ` it prints before it. */
async function opmTemplateError(file: string): Promise<string> {
  try {
    await run(opm, ['alpha', 'render-template', file, '-o', 'json']);
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    return stderr.split('\n')[0]!.replace(/^Error: rendering template: /, '');
  }
  throw new Error(`opm rendered ${file}`);
}

describe('renderTemplate agrees with opm alpha render-template on Go field names', () => {
  it('reads a basic template whose keys are spelt as Go matches them (Schema:, Entries:, PACKAGE:)', async () => {
    const file = join(TEMPLATES, 'basic-go-field-names.yaml');
    const theirs = await opmRun(opm, ['alpha', 'render-template', file, '-o', 'json']);
    const ours = serializeCatalog(renderTemplate(readFileSync(file), {}, { file }), { format: 'json' });
    expect(ours).toBe(theirs);
  });

  it('reads a semver template whose keys are capitalised, as community catalogs spell them', async () => {
    const file = join(TEMPLATES, 'semver-go-field-names.yaml');
    // Without bundles both stop at the same step, after reading every field.
    const theirs = await opmTemplateError(file);
    expect(theirs).toBe('render: no bundles specified or no bundles could be rendered');
    expect(() => renderTemplate(readFileSync(file), {}, { file })).toThrow(`${file}: ${theirs}`);
  });
});
