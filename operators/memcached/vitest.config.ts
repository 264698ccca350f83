import { defineConfig } from 'vitest/config';
import { opkitVitestConfig } from '../../test/cluster/src/testing/vitest-projects.js';

// The state test's pods need only become Ready, which kwok nodes do: it runs beside a real-node run.
export default defineConfig(
  opkitVitestConfig({ e2eRunsCli: true, kwokSpecs: ['test/state.spec.ts', 'test/fault-matrix.spec.ts'] }),
);
