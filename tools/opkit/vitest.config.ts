import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@opkit/source'] },
  ssr: { resolve: { conditions: ['@opkit/source'], externalConditions: ['@opkit/source'] } },
  test: {
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['src/**/*.spec.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/**/*.spec.ts'],
          // One real control plane shared by the end-to-end files.
          globalSetup: ['../../test/cluster/src/testing/global-setup.ts'],
          testTimeout: 180_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
