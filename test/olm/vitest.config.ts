import { defineConfig } from 'vitest/config';
import { opkitVitestConfig } from '../cluster/src/testing/vitest-projects.js';

// Every suite starts a control plane of its own with OLM, so the shared cluster is not needed.
export default defineConfig(opkitVitestConfig({ e2eUsesCluster: false, e2eRunsCli: true }));
