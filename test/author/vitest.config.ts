import { opkitVitestConfig } from '@opkit/test-cluster/vitest-projects';
import { defineConfig } from 'vitest/config';

// The one suite starts its own cluster with OLM, after the registry and the published packages.
export default defineConfig(opkitVitestConfig({ e2eUsesCluster: false }));
