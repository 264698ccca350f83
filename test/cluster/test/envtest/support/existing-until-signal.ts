// Run by the envtest spec: a test environment on the existing cluster of KUBECONFIG, which prints `ready` and
// then waits to be killed by a signal.
import { join } from 'node:path';
import { startTestEnvironment } from '../../../src/envtest/index.js';

const fixtures = join(import.meta.dirname, '..', 'fixtures');
await startTestEnvironment({
  crdDirectoryPaths: [join(fixtures, 'config/crd/bases')],
  webhookConfigPaths: [join(fixtures, 'config/webhook/manifests.yaml')],
  useExistingCluster: true,
});
process.stdout.write('ready\n');
setInterval(() => {}, 60_000);
