import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@opkit/source'] },
  test: {
    include: ['test/**/*.spec.ts', 'src/**/*.spec.ts'],
    globalSetup: ['./src/testing/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    // Tests share one control plane; running files one after another keeps the 2-core machine responsive.
    fileParallelism: false,
  },
});
