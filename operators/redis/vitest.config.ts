import { defineConfig } from 'vitest/config';
import { opkitVitestConfig } from '../../test/cluster/src/testing/vitest-projects.js';

export default defineConfig(opkitVitestConfig({ e2eRunsCli: true }));
