import { defineConfig } from 'vitest/config';
import { opkitVitestConfig } from './src/testing/vitest-projects.js';

// Every e2e suite here starts the clusters it needs (a real node, OLM, several at once, one that is killed);
// the kit's in-process operator bookkeeping runs in `kwok` on the shared kwok-only cluster its users get.
export default defineConfig(
  opkitVitestConfig({ e2eUsesCluster: false, kwokSpecs: ['test/in-process-crds.spec.ts'] }),
);
