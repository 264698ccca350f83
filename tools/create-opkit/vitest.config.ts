import { opkitVitestConfig } from '@opkit/test-cluster/vitest-projects';
import { defineConfig } from 'vitest/config';

// Unit tests only (src/**/*.spec.ts): no cluster. The generated workspace's test runs its unit tier.
export default defineConfig(opkitVitestConfig({ e2eUsesCluster: false }));
