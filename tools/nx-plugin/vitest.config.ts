import { opkitVitestConfig } from '@opkit/test-cluster/vitest-projects';
import { defineConfig } from 'vitest/config';

// The end-to-end test scaffolds an operator in a copy of the workspace (which builds the CLI itself) and
// starts its own control plane, without a real node, for the generated operator's tests; the generator
// sequences run `opkit bundle generate` from the CLI's build.
export default defineConfig(opkitVitestConfig({ e2eUsesCluster: false, e2eRunsCli: true }));
