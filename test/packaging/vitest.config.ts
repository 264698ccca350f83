import { opkitGlobalSetups } from '@opkit/test-cluster/vitest-projects';
import { configDefaults, defineConfig } from 'vitest/config';

// The test kit (`@opkit/test-cluster/vitest`) from its sources; the packed packages are used only by the
// processes the tests start in the consumer project, which resolve them from its own node_modules.
const conditions = ['@opkit/source'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: conditions } },
  environments: { __vitest__: { resolve: { conditions, externalConditions: conditions } } },
  test: {
    projects: [
      // The architecture test reads the workspace's sources: no build, no control plane.
      { extends: true, test: { name: 'unit', include: ['src/**/*.spec.ts'] } },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/**/*.spec.ts'],
          exclude: [...configDefaults.exclude, 'test/registry/**'],
          globalSetup: [
            // Packs what `nx run <package>:build` wrote: a bare `vitest run` builds first, as under Nx the target does.
            opkitGlobalSetups.buildPackages,
            // The packed operator reconciles against a control plane; it runs no pods, so no node is needed.
            opkitGlobalSetups.controlPlane,
          ],
          testTimeout: 120_000,
          hookTimeout: 600_000,
        },
      },
      {
        extends: true,
        test: {
          // The packages from a private npm registry (Verdaccio on loopback): publishes the workspace (its
          // `startNpmRegistry().publishWorkspace()` builds it first) and installs from it outside the repository.
          name: 'registry',
          include: ['test/registry/**/*.spec.ts'],
          testTimeout: 300_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
