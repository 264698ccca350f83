import { opkitVitestConfig } from '@opkit/test-cluster/vitest-projects';
import { defineConfig } from 'vitest/config';

// The CLI's end-to-end tests judge its output with opm, skopeo, umoci and a registry, some on a kwok-only
// cluster of their own; only `publish` needs a real node (a cluster with OLM that runs the catalog's pods).
export default defineConfig(
  opkitVitestConfig({ e2eUsesCluster: false, e2eRunsCli: true, realNodeSpecs: ['test/publish.spec.ts'] }),
);
