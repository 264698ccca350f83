import { defineConfig } from 'vitest/config';
import { opkitVitestConfig } from '../../test/cluster/src/testing/vitest-projects.js';

// The CLI's end-to-end tests judge its output with opm, skopeo, umoci and a registry; no cluster needed.
export default defineConfig(opkitVitestConfig({ e2eUsesCluster: false, e2eRunsCli: true }));
