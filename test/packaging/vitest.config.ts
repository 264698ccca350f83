import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Packs what `nx run <package>:build` wrote: a bare `vitest run` builds first, as under Nx the target does.
const buildPackages = fileURLToPath(new URL('../cluster/src/testing/build-packages.ts', import.meta.url));

export default defineConfig({
  test: {
    include: ['test/**/*.spec.ts'],
    globalSetup: [buildPackages],
    testTimeout: 120_000,
    hookTimeout: 600_000,
  },
});
