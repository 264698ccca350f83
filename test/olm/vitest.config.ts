import { opkitVitestConfig } from '@opkit/test-cluster/vitest-projects';
import { defineConfig } from 'vitest/config';

// Every suite starts a control plane of its own with OLM, so the shared cluster is not needed.
export default defineConfig(opkitVitestConfig({ e2eUsesCluster: false, e2eRunsCli: true }));
