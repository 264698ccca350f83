import { opkitVitestConfig } from '@opkit/test-cluster/vitest-projects';
import { defineConfig } from 'vitest/config';

// These files keep their operator (scoped to their namespace) and their objects in namespaces of their own, so
// they run two at a time on the one cluster; the project and walk-through tests run an operator that watches
// every namespace and remove the CRD when they end, so they run alone, after them.
export default defineConfig(
  opkitVitestConfig({
    e2eRunsCli: true,
    e2eParallelSpecs: [
      'test/fault-matrix.spec.ts',
      'test/redis-cluster.spec.ts',
      'test/state.spec.ts',
      'test/operator-process.spec.ts',
    ],
  }),
);
