import { describe, expect, it } from 'vitest';
import { opkitVitestConfig, sourceConditions } from './vitest-projects.js';

describe('opkitVitestConfig', () => {
  it('resolves packages to their sources in this repository', () => {
    expect(opkitVitestConfig().resolve?.conditions).toEqual(['@opkit/source']);
  });

  it('installed (its build), resolves packages to their builds: no @opkit/source condition', () => {
    const installed = 'file:///w/node_modules/@opkit/test-cluster/dist/testing/vitest-projects.js';
    expect(sourceConditions(installed)).toEqual([]);
    expect(sourceConditions('file:///w/test/cluster/src/testing/vitest-projects.ts')).toEqual([
      '@opkit/source',
    ]);
  });
});
