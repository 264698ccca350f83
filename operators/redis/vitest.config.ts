import { opkitVitestConfig } from '@opkit/test-cluster/vitest-projects';
import { defineConfig } from 'vitest/config';

export default defineConfig(opkitVitestConfig({ e2eRunsCli: true }));
