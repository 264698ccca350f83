import { opkitPrometheusVitestConfig } from '@opkit/test-cluster/vitest-projects';
import { defineConfig } from 'vitest/config';

// The suites that check the operator's metrics, rules and alerts in a real Prometheus (vitest.config.ts leaves
// the same files out). Opt-in: `nx run memcached:e2e-prometheus` (or `vitest run --config vitest.prometheus.config.ts`).
export default defineConfig(
  opkitPrometheusVitestConfig({ prometheusSpecs: ['test/prometheus/**/*.spec.ts'], e2eRunsCli: true }),
);
