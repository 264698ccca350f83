import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startTestEnvironment } from './environment.js';
import './accessor.js';

/**
 * The `envtest` project's vitest global setup: one test environment for the whole run, started from the
 * package directory (its `config/crd/bases` and `config/webhook/manifests.yaml`), handed to the test files
 * through `provide` (read it with `envtest()`), stopped after the last file.
 */
export default async function envtestSetup(project: TestProject): Promise<() => Promise<void>> {
  const root = project.config.root;
  const present = (relative: string) => (existsSync(join(root, relative)) ? [join(root, relative)] : []);
  const env = await startTestEnvironment({
    crdDirectoryPaths: present('config/crd/bases'),
    webhookConfigPaths: present('config/webhook/manifests.yaml'),
    onProgress: (line) => {
      if (process.env.OPKIT_TEST_VERBOSE || /build|ready in/.test(line))
        process.stderr.write(`[envtest] ${line}\n`);
    },
  });
  project.provide('opkitEnvtest', {
    kubeconfigPath: env.kubeconfigPath,
    usesExistingCluster: env.usesExistingCluster,
    webhook: env.webhook,
  });
  return () => env.stop();
}
