import { opkitVitestConfig } from '@opkit/test-cluster/vitest-projects';
import { defineConfig } from 'vitest/config';

// The state test's pods need only become Ready, which kwok nodes do: it runs beside a real-node run. The
// Prometheus suite is opt-in (`nx run memcached:e2e-prometheus`, vitest.prometheus.config.ts), left out here.
export default defineConfig(
  opkitVitestConfig({
    e2eRunsCli: true,
    kwokSpecs: ['test/state.spec.ts', 'test/fault-matrix.spec.ts'],
    prometheusSpecs: ['test/prometheus/**/*.spec.ts'],
  }),
);
