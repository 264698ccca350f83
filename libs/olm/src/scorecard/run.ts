// Runs the tests a scorecard config selects and writes the TestList as operator-sdk does (text, json, xunit).
import {
  matchesSelector,
  SCORECARD_API_VERSION,
  type ScorecardConfiguration,
  type TestConfiguration,
} from './config.js';
import { BUILTIN_TESTS, type BuiltinTest, runBuiltinTest, type TestResult } from './tests.js';

/** A v1alpha3 `Test`: the config entry and its results. */
export interface ScorecardTest {
  kind: 'Test';
  apiVersion: typeof SCORECARD_API_VERSION;
  spec: TestConfiguration;
  status: { results: TestResult[] };
}
/** A v1alpha3 `TestList`. */
export interface ScorecardTestList {
  apiVersion: typeof SCORECARD_API_VERSION;
  kind: 'TestList';
  items: ScorecardTest[];
}

/** The built-in test an entrypoint names (`[scorecard-test, <name>]`), if it is one. */
function builtinOf(entrypoint: readonly string[]): BuiltinTest | undefined {
  const [command, name] = entrypoint;
  if (command !== 'scorecard-test' || entrypoint.length !== 2) return undefined;
  return (BUILTIN_TESTS as readonly string[]).includes(name ?? '') ? (name as BuiltinTest) : undefined;
}

/** Runs the tests of `config` that `selector` selects on the bundle in `dir`, in stage order. */
export function runScorecard(dir: string, config: ScorecardConfiguration, selector = ''): ScorecardTestList {
  const items: ScorecardTest[] = [];
  for (const stage of config.stages)
    for (const spec of stage.tests) {
      if (!matchesSelector(selector, spec.labels)) continue;
      const builtin = builtinOf(spec.entrypoint);
      const result: TestResult =
        builtin === undefined
          ? {
              name: spec.entrypoint[spec.entrypoint.length - 1] ?? '',
              state: 'error',
              errors: [
                `entrypoint [${spec.entrypoint.join(' ')}] is not a built-in test: opkit runs only scorecard-test with one of ${BUILTIN_TESTS.join(', ')}, not test images`,
              ],
            }
          : runBuiltinTest(builtin, dir);
      items.push({ kind: 'Test', apiVersion: SCORECARD_API_VERSION, spec, status: { results: [result] } });
    }
  return { apiVersion: SCORECARD_API_VERSION, kind: 'TestList', items };
}

/** operator-sdk's exit rule: non-zero when any result is not `pass`. */
export function scorecardPassed(list: ScorecardTestList): boolean {
  return list.items.every((t) => t.status.results.every((r) => r.state === 'pass'));
}

/** The text report, laid out like operator-sdk's. */
export function formatScorecardText(list: ScorecardTestList): string {
  const out: string[] = [];
  for (const t of list.items) {
    out.push('--------------------------------------------------------------------------------');
    out.push(`Image:      ${t.spec.image}`);
    out.push(`Entrypoint: [${t.spec.entrypoint.join(' ')}]`);
    out.push('Labels:');
    for (const [k, v] of Object.entries(t.spec.labels)) out.push(`\t"${k}":"${v}"`);
    out.push('Results:');
    for (const r of t.status.results) {
      out.push(`\tName: ${r.name}`);
      out.push(`\tState: ${r.state}`);
      if (r.suggestions !== undefined) {
        out.push('', '\tSuggestions:');
        for (const s of r.suggestions) out.push(`\t\t${s}`);
      }
      if (r.errors !== undefined) {
        out.push('', '\tErrors:');
        for (const e of r.errors) out.push(`\t\t${e}`);
      }
      if (r.log !== undefined) {
        out.push('', '\tLog:');
        for (const l of r.log.split('\n')) out.push(`\t\t${l}`);
      }
      out.push('');
    }
  }
  return `${out.join('\n')}\n`;
}

const xml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** JUnit XML: one testsuite per test, one testcase per result, failures carrying the errors. */
export function formatScorecardXunit(list: ScorecardTestList): string {
  const suites = list.items.map((t) => {
    const cases = t.status.results.map((r) => {
      const body =
        r.state === 'pass'
          ? ''
          : `<failure message="${xml(r.state)}">${xml((r.errors ?? []).join('\n'))}</failure>`;
      const log = r.log === undefined ? '' : `<system-out>${xml(r.log)}</system-out>`;
      return `    <testcase name="${xml(r.name)}">${body}${log}</testcase>`;
    });
    const failures = t.status.results.filter((r) => r.state !== 'pass').length;
    const name = t.status.results[0]?.name ?? '';
    return `  <testsuite name="${xml(name)}" tests="${t.status.results.length}" failures="${failures}">\n${cases.join('\n')}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="scorecard">\n${suites.join('\n')}\n</testsuites>\n`;
}
