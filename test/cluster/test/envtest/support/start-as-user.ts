// Run by the envtest spec as another user (nobody): starts a test environment, checks it answers, stops it,
// and prints one JSON line with what it saw.
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { startTestEnvironment } from '../../../src/envtest/index.js';
import { KubeRest } from '../../../src/kube/rest.js';

const env = await startTestEnvironment({
  crdDirectoryPaths: [],
  webhookConfigPaths: [],
  useExistingCluster: false,
});
const rest = new KubeRest(env.kubeConfig);
const readyz = (await rest.getText('/readyz')).status;
rest.close();
await env.stop();
process.stdout.write(
  `${JSON.stringify({ uid: process.getuid?.(), readyz, tempDirRemoved: !existsSync(dirname(env.kubeconfigPath)) })}\n`,
);
