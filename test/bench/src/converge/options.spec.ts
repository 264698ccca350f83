import { OPERATOR_NODE_OPTIONS } from '@opkit/controller-runtime/manager';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONVERGE_OPTIONS, parseConvergeOptions, QUICK_CONVERGE_OPTIONS } from './options.js';

describe('parseConvergeOptions', () => {
  it('takes the defaults and overrides them flag by flag', () => {
    expect(parseConvergeOptions([])).toEqual(DEFAULT_CONVERGE_OPTIONS);
    expect(parseConvergeOptions(['--sizes', '10,20', '--runs=1', '--skip-limit'])).toMatchObject({
      sizes: [10, 20],
      runs: [1, 1],
      limit: false,
    });
    expect(parseConvergeOptions(['--sizes', '10,20', '--runs', '20:1,10:5']).runs).toEqual([5, 1]);
    expect(parseConvergeOptions(['--sizes', '10']).runs).toEqual([3]);
  });

  it('runs our operator with the image’s node flags unless --node-options tries others', () => {
    expect(parseConvergeOptions([]).nodeOptions).toEqual(OPERATOR_NODE_OPTIONS);
    expect(
      parseConvergeOptions(['--node-options=--max-semi-space-size=1  --optimize-for-size ']).nodeOptions,
    ).toEqual(['--max-semi-space-size=1', '--optimize-for-size']);
    expect(parseConvergeOptions(['--node-options=']).nodeOptions).toEqual([]);
  });

  it('--quick is one run of a few hundred with a short steady window; flags beside it win', () => {
    expect(parseConvergeOptions(['--quick'])).toEqual({
      ...DEFAULT_CONVERGE_OPTIONS,
      ...QUICK_CONVERGE_OPTIONS,
    });
    expect(parseConvergeOptions(['--quick', '--steady-seconds', '5', '--skip-limit'])).toMatchObject({
      sizes: [200],
      runs: [1],
      steadySeconds: 5,
      limit: false,
    });
    expect(parseConvergeOptions(['--quick', '--sizes', '50']).runs).toEqual([3]);
  });

  it('measures ours without server-side apply only when --also-without-apply asks for it', () => {
    expect(parseConvergeOptions([]).alsoWithoutApply).toBe(false);
    expect(parseConvergeOptions(['--also-without-apply']).alsoWithoutApply).toBe(true);
  });

  it('measures the baseline with the same objects only when --same-objects asks for it', () => {
    expect(parseConvergeOptions([]).sameObjects).toBe(false);
    expect(parseConvergeOptions(['--same-objects']).sameObjects).toBe(true);
    expect(parseConvergeOptions(['--quick', '--same-objects'])).toMatchObject({
      sizes: [200],
      sameObjects: true,
    });
  });

  it('leaves the control plane its own rate limits unless --control-plane-qps is given', () => {
    expect(parseConvergeOptions([]).controlPlaneQps).toBeUndefined();
    expect(parseConvergeOptions(['--quick', '--control-plane-qps', '500']).controlPlaneQps).toBe(500);
  });

  it('counts a phase’s writes once the operator has made none for 10 s, unless --quiet-seconds says otherwise', () => {
    expect(parseConvergeOptions([]).quietSeconds).toBe(10);
    expect(parseConvergeOptions(['--quick', '--quiet-seconds=30']).quietSeconds).toBe(30);
    expect(() => parseConvergeOptions(['--quiet-seconds', '0'])).toThrow(/--quiet-seconds: .*1 to 600/);
  });

  it('keeps each fleet in one namespace unless --namespaces deals it over several', () => {
    expect(parseConvergeOptions([]).namespaces).toBe(1);
    expect(parseConvergeOptions(['--quick', '--namespaces', '20']).namespaces).toBe(20);
    expect(() => parseConvergeOptions(['--sizes', '10,100', '--namespaces', '20'])).toThrow(
      /--namespaces: 20 namespaces would leave some empty in a fleet of 10/,
    );
  });

  it('names the flag and the reason for bad input', () => {
    expect(() => parseConvergeOptions(['--sizes', '100,x'])).toThrow(/--sizes: .*"x"/);
    expect(() => parseConvergeOptions(['--update-size', '4'])).toThrow(/--update-size: .*1 to 3/);
    expect(() => parseConvergeOptions(['--create-size', '2', '--update-size', '2'])).toThrow(/must differ/);
    expect(() => parseConvergeOptions(['--bogus'])).toThrow(/bogus/);
    expect(() => parseConvergeOptions(['--sizes', '10,20', '--runs', '10:2'])).toThrow(
      /no entry for size 20/,
    );
    expect(() => parseConvergeOptions(['--runs', '100:1:2'])).toThrow(/<size>:<runs>/);
    expect(() => parseConvergeOptions(['--control-plane-qps', '0'])).toThrow(
      /--control-plane-qps: .*1 to 100000/,
    );
    expect(() => parseConvergeOptions(['--node-options=--jitless main.js'])).toThrow(
      /--node-options: .*"main.js"/,
    );
  });
});
