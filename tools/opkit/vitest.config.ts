import { opkitVitestConfig } from '@opkit/test-cluster/vitest-projects';
import { defineConfig } from 'vitest/config';

// The CLI's end-to-end tests judge its output with opm, skopeo, umoci and a registry; no cluster needed.
export default defineConfig(opkitVitestConfig({ e2eUsesCluster: false, e2eRunsCli: true }));
