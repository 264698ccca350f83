import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { readScorecardConfig, ScorecardConfigError } from './config.js';
import { formatScorecardText, formatScorecardXunit, runScorecard, scorecardPassed } from './run.js';
import { BUILTIN_TESTS } from './tests.js';

// Sample data: the Memcached operator's first released bundle, as it was released (a copy, so a later release
// does not change what these tests start from).
const SOURCE = join(import.meta.dirname, '..', '..', 'test', 'scorecard', 'memcached-operator-0.1.0');
const CSV = 'manifests/memcached-operator.clusterserviceversion.yaml';
const CRD = 'manifests/cache.example.com_memcacheds.yaml';

const configYaml = (entrypoints: readonly string[][]): string =>
  stringify({
    apiVersion: 'scorecard.operatorframework.io/v1alpha3',
    kind: 'Configuration',
    metadata: { name: 'config' },
    stages: [
      {
        parallel: true,
        tests: entrypoints.map((entrypoint) => ({
          entrypoint,
          image: 'scorecard-test:v1',
          labels: {
            suite: entrypoint[1]?.startsWith('olm-') ? 'olm' : 'basic',
            test: `${entrypoint[1]}-test`,
          },
        })),
      },
    ],
  });

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'scorecard-'));
  cpSync(SOURCE, dir, { recursive: true });
  mkdirSync(join(dir, 'tests/scorecard'), { recursive: true });
  writeFileSync(
    join(dir, 'tests/scorecard/config.yaml'),
    configYaml(BUILTIN_TESTS.map((t) => ['scorecard-test', t])),
  );
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

// biome-ignore lint/suspicious/noExplicitAny: the fixtures damage arbitrary YAML in place, by any path.
type Doc = Record<string, any>;

/** Edits a YAML manifest of the copied bundle. */
function edit(file: string, change: (doc: Doc) => void): void {
  const doc = parse(readFileSync(join(dir, file), 'utf8'));
  change(doc);
  writeFileSync(join(dir, file), stringify(doc));
}
const editExamples = (change: (crs: Doc[]) => void): void =>
  edit(CSV, (csv) => {
    const crs = JSON.parse(csv.metadata.annotations['alm-examples']);
    change(crs);
    csv.metadata.annotations['alm-examples'] = JSON.stringify(crs);
  });
const run = (selector = '') => runScorecard(dir, readScorecardConfig(dir), selector);
const failures = (selector = '') =>
  run(selector).items.flatMap((t) =>
    t.status.results.filter((r) => r.state !== 'pass').map((r) => ({ name: r.name, errors: r.errors })),
  );

describe('opkit scorecard suites', () => {
  it('passes an intact bundle', () => {
    const list = run();
    expect(list.items.map((t) => t.status.results[0]?.name)).toEqual([...BUILTIN_TESTS]);
    expect(failures()).toEqual([]);
    expect(scorecardPassed(list)).toBe(true);
  });

  it('basic-check-spec fails a CR example without spec', () => {
    editExamples((crs) => {
      delete crs[0].spec;
    });
    expect(failures('test=basic-check-spec-test')).toEqual([
      {
        name: 'basic-check-spec',
        errors: ['error spec does not exist for the custom resource memcached-sample'],
      },
    ]);
  });

  it('olm-crds-have-validation fails a CRD without openAPIV3Schema', () => {
    edit(CRD, (crd) => {
      for (const v of crd.spec.versions) delete v.schema;
    });
    const failed = failures('test=olm-crds-have-validation-test');
    expect(failed[0]?.name).toBe('olm-crds-have-validation');
    expect(failed[0]?.errors?.[0]).toMatch(/^CRD memcacheds.cache.example.com version \S+ has no validation/);
  });

  it('olm-crds-have-resources fails an owned CRD without resources', () => {
    edit(CSV, (csv) => {
      for (const o of csv.spec.customresourcedefinitions.owned) delete o.resources;
    });
    expect(failures('test=olm-crds-have-resources-test')).toEqual([
      { name: 'olm-crds-have-resources', errors: ['Owned CRDs do not have resources specified'] },
    ]);
  });

  it('olm-spec-descriptors fails a spec field without a descriptor', () => {
    editExamples((crs) => {
      crs[0].spec.unexplained = 1;
    });
    expect(failures('test=olm-spec-descriptors-test')).toEqual([
      { name: 'olm-spec-descriptors', errors: ['unexplained does not have a spec descriptor'] },
    ]);
  });

  it('runs only what the selector selects', () => {
    expect(run('suite=basic').items.map((t) => t.status.results[0]?.name)).toEqual(['basic-check-spec']);
    expect(run('suite=olm').items).toHaveLength(5);
    expect(run('suite=nothing').items).toHaveLength(0);
  });

  it('reports an entrypoint that is not a built-in test as an error', () => {
    writeFileSync(join(dir, 'tests/scorecard/config.yaml'), configYaml([['scorecard-test', 'olm-bogus']]));
    const [result] = run().items[0]?.status.results ?? [];
    expect(result?.state).toBe('error');
    expect(result?.errors?.[0]).toMatch(/not a built-in test/);
  });

  it('refuses a config that is not a scorecard Configuration, naming the file', () => {
    writeFileSync(join(dir, 'tests/scorecard/config.yaml'), 'kind: Other\n');
    expect(() => readScorecardConfig(dir)).toThrow(ScorecardConfigError);
    expect(() => readScorecardConfig(dir)).toThrow(/config\.yaml: kind is "Other"/);
  });

  it('writes text and xunit reports', () => {
    editExamples((crs) => {
      delete crs[0].spec;
    });
    const list = run('suite=basic');
    expect(formatScorecardText(list)).toContain('\tName: basic-check-spec\n\tState: fail\n');
    expect(formatScorecardXunit(list)).toContain(
      '<testcase name="basic-check-spec"><failure message="fail">',
    );
    expect(list.kind).toBe('TestList');
  });
});
