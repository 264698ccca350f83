import { opkitVitestConfig } from '@opkit/test-cluster/vitest-projects';
import { defineConfig } from 'vitest/config';

// The state test's pods need only become Ready, which kwok nodes do: it runs beside a real-node run.
export default defineConfig(
  opkitVitestConfig({ e2eRunsCli: true, kwokSpecs: ['test/state.spec.ts', 'test/fault-matrix.spec.ts'] }),
);
