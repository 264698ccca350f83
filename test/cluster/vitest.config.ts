import { defineConfig } from 'vitest/config';
import { opkitVitestConfig } from './src/testing/vitest-projects.js';

// Every e2e suite here starts the clusters it needs. Those with a real node (workloads, OLM, one that is killed)
// run in `real-node`; the kwok-only ones, the API server replica and the image builds in `e2e`, beside a
// real-node run; the kit's in-process operator bookkeeping in `kwok`, on the shared kwok-only cluster its users get.
export default defineConfig(
  opkitVitestConfig({
    e2eUsesCluster: false,
    kwokSpecs: ['test/in-process-crds.spec.ts'],
    realNodeSpecs: ['test/workloads.spec.ts', 'test/olm.spec.ts', 'test/killed-real-node.spec.ts'],
  }),
);
