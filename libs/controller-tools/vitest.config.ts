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
    ],
  },
});
