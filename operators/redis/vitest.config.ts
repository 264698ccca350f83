import { opkitVitestConfig } from '@opkit/test-cluster/vitest-projects';
import { defineConfig } from 'vitest/config';

// Each e2e file runs its operator for namespaces of its own, and the fault matrix restarts an API server replica
// of its own, so the files run two at a time on the shared real-node cluster. The project test (the operator
// deployed, watching every namespace, then undeployed with its CRD) and the README's walk-through (`nx run
// redis:run`, every namespace) act cluster-wide: they run alone, after the others.
export default defineConfig(
  opkitVitestConfig({
    e2eRunsCli: true,
    e2eFilesInParallel: true,
    e2eSoloSpecs: ['test/project.spec.ts', 'test/walkthrough.spec.ts'],
  }),
);
