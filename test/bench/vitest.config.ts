import { defineConfig } from 'vitest/config';

// Unit tests of the benchmarks' own measuring code; the benchmarks themselves are nx targets, not tests.
export default defineConfig({
  resolve: { conditions: ['@opkit/source'] },
  ssr: { resolve: { conditions: ['@opkit/source'], externalConditions: ['@opkit/source'] } },
  test: { include: ['src/**/*.spec.ts'] },
});
