import { opkitVitestConfig } from '@opkit/test-cluster/vitest-projects';
import { defineConfig } from 'vitest/config';

// Only test/leader-for-life-deployed.spec.ts runs pods (the Memcached operator, deployed with the `opkit`
// command's build): it needs the real node, in `e2e`. The other suites run managers and replicas in processes of
// their own against an API server, so they run in `kwok`, beside a real-node run (watch-resilience starts a
// kwok-only cluster of its own as well, to reach its etcd).
export default defineConfig(
  opkitVitestConfig({
    e2eRunsCli: true,
    kwokSpecs: [
      'test/converge.spec.ts',
      'test/leader-election.spec.ts',
      'test/misbehaving-reconciler.spec.ts',
      'test/reconcile-helpers.spec.ts',
      'test/secure-metrics.spec.ts',
      'test/watch-resilience.spec.ts',
      'test/webhooks.spec.ts',
    ],
  }),
);
