import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Packs what `nx run <package>:build` wrote: a bare `vitest run` builds first, as under Nx the target does.
const buildPackages = fileURLToPath(new URL('../cluster/src/testing/build-packages.ts', import.meta.url));
// The packed operator reconciles against a control plane; it runs no pods, so no node is needed.
const controlPlane = fileURLToPath(new URL('../cluster/src/testing/control-plane-setup.ts', import.meta.url));
// The test kit (`@opkit/test-cluster/vitest`) from its sources; the packed packages are used only by the
// processes the tests start in the consumer project, which resolve them from its own node_modules.
const conditions = ['@opkit/source'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: conditions } },
  environments: { __vitest__: { resolve: { conditions, externalConditions: conditions } } },
  test: {
    include: ['test/**/*.spec.ts'],
    globalSetup: [buildPackages, controlPlane],
    testTimeout: 120_000,
    hookTimeout: 600_000,
  },
});
