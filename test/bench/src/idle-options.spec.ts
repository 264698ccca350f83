import { OPERATOR_NODE_OPTIONS } from '@opkit/controller-runtime/manager';
import { describe, expect, it } from 'vitest';
import { parseIdleOptions } from './idle-options.js';

describe('parseIdleOptions', () => {
  it('measures the operator with the flags its image ships, 7 samples, no fleet, by default', () => {
    expect(parseIdleOptions([])).toEqual({
      samples: 7,
      nodeOptions: OPERATOR_NODE_OPTIONS,
      env: {},
      fleet: [],
    });
  });

  it('takes other node flags, environment and fleet sizes', () => {
    const options = parseIdleOptions([
      '--samples=3',
      '--node-options=--lite-mode  --max-semi-space-size=1',
      '--env=MALLOC_ARENA_MAX=2',
      '--fleet=100,1000',
    ]);
    expect(options).toEqual({
      samples: 3,
      nodeOptions: ['--lite-mode', '--max-semi-space-size=1'],
      env: { MALLOC_ARENA_MAX: '2' },
      fleet: [100, 1000],
    });
  });

  it('refuses a fleet that does not grow, a bad count and an unknown flag', () => {
    expect(() => parseIdleOptions(['--fleet=1000,100'])).toThrow(
      '--fleet takes ascending sizes, got 1000,100',
    );
    expect(() => parseIdleOptions(['--samples=0'])).toThrow('--samples takes a positive integer, got 0');
    expect(() => parseIdleOptions(['--env=oops'])).toThrow('unknown option --env=oops');
  });
});
