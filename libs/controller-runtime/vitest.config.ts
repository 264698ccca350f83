import { opkitVitestConfig } from '@opkit/test-cluster/vitest-projects';
import { defineConfig } from 'vitest/config';

// test/leader-for-life-deployed.spec.ts deploys the Memcached operator with the `opkit` command: its build.
export default defineConfig(opkitVitestConfig({ e2eRunsCli: true }));
