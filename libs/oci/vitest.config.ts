import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@opkit/source'] },
  ssr: { resolve: { conditions: ['@opkit/source'], externalConditions: ['@opkit/source'] } },
  test: {
    projects: [
      {
        extends: true,
        // Seeded property tests take seconds alone and twice that on a busy two-core machine.
        test: { name: 'unit', include: ['src/**/*.spec.ts'], testTimeout: 20_000 },
      },
      {
        extends: true,
        test: {
          // Starts throw-away `docker-registry` processes on loopback; needs docker-registry, skopeo, umoci.
          name: 'integration',
          include: ['test/**/*.spec.ts'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
    ],
  },
});
