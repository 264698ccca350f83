import { describe, expect, it } from 'vitest';
import { parseEnvtestBenchOptions } from './envtest-options.js';

describe('bench:envtest options', () => {
  it('measures only the envtest tier unless the real node is asked for', () => {
    expect(parseEnvtestBenchOptions([], {})).toEqual({ runs: 5, suiteRuns: 1, realNode: false });
    expect(parseEnvtestBenchOptions(['--real-node', '--runs=2', '--suite-runs=3'], {})).toEqual({
      runs: 2,
      suiteRuns: 3,
      realNode: true,
    });
    expect(parseEnvtestBenchOptions([], { OPKIT_BENCH_REAL_NODE: 'true' }).realNode).toBe(true);
    expect(parseEnvtestBenchOptions([], { OPKIT_BENCH_REAL_NODE: '1' }).realNode).toBe(false);
  });

  it('refuses malformed counts and unknown arguments', () => {
    expect(() => parseEnvtestBenchOptions(['--runs=0'], {})).toThrow('--runs: expected a whole number ≥ 1');
    expect(() => parseEnvtestBenchOptions(['--suite-runs=x'], {})).toThrow('--suite-runs');
    expect(() => parseEnvtestBenchOptions(['--realnode'], {})).toThrow('unknown argument --realnode');
  });
});
