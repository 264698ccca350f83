import { OPERATOR_NODE_OPTIONS } from '@opkit/controller-runtime/manager';
import { describe, expect, it } from 'vitest';
import { parseIdleOptions, SHIPPED_VARIANT } from './idle-options.js';

describe('parseIdleOptions', () => {
  it('measures the operator with the flags its image ships, 7 samples, no fleet, by default', () => {
    expect(parseIdleOptions([])).toEqual({
      samples: 7,
      variants: [SHIPPED_VARIANT],
      fleet: [],
      baseline: false,
    });
    expect(SHIPPED_VARIANT.nodeOptions).toEqual(OPERATOR_NODE_OPTIONS);
  });

  it('takes variants of node flags and environment, and fleet sizes', () => {
    const options = parseIdleOptions([
      '--samples=3',
      '--variant=shipped',
      '--variant=--lite-mode  MALLOC_ARENA_MAX=2',
      '--variant=',
      '--fleet=100,1000',
    ]);
    expect(options).toEqual({
      samples: 3,
      variants: [
        SHIPPED_VARIANT,
        {
          label: '--lite-mode  MALLOC_ARENA_MAX=2',
          nodeOptions: ['--lite-mode'],
          env: { MALLOC_ARENA_MAX: '2' },
        },
        { label: '(no flags)', nodeOptions: [], env: {} },
      ],
      fleet: [100, 1000],
      baseline: false,
    });
  });

  it('measures the Go baseline beside ours only when --baseline asks for it', () => {
    expect(parseIdleOptions(['--baseline', '--fleet=1000,10000'])).toMatchObject({
      fleet: [1000, 10000],
      baseline: true,
    });
  });

  it('refuses a fleet that does not grow, a bad count, a stray word and an unknown flag', () => {
    expect(() => parseIdleOptions(['--fleet=1000,100'])).toThrow(
      '--fleet takes ascending sizes, got 1000,100',
    );
    expect(() => parseIdleOptions(['--samples=0'])).toThrow('--samples takes a positive integer, got 0');
    expect(() => parseIdleOptions(['--variant=oops'])).toThrow(
      '--variant: oops is neither a node flag nor NAME=VALUE',
    );
    expect(() => parseIdleOptions(['--runs=3'])).toThrow('unknown option --runs=3');
  });
});
