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
          name: 'bundle-conformance',
          // Bundle corpus and opm agreement: no cluster needed.
          include: ['test/bundle/**/*.spec.ts'],
          // opm is built from its Go module on first use.
          testTimeout: 120_000,
          hookTimeout: 900_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'conformance',
          // Catalog corpus, writer, graph and template agreement with a real opm binary, and CRD upgrade safety
          // agreement with a real crdify binary; no cluster needed.
          include: [
            'test/catalog/**/*.spec.ts',
            'test/differential/**/*.spec.ts',
            'test/crd-safety/**/*.spec.ts',
          ],
          testTimeout: 120_000,
          hookTimeout: 1_800_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'envtest',
          // CEL rule agreement with a loopback etcd and kube-apiserver (no node), started by the spec.
          include: ['test/envtest/**/*.spec.ts'],
          testTimeout: 60_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
