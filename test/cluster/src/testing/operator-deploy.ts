import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { KubeRest } from '../kube/rest.js';
import { eventually } from './index.js';
import { pushOperatorImage } from './operator-image.js';

const run = promisify(execFile);
const opkit = join(import.meta.dirname, '..', '..', '..', '..', 'tools', 'opkit', 'bin', 'opkit.js');

interface ManagerPod {
  readonly metadata: { readonly name: string };
  readonly status?: {
    readonly containerStatuses?: readonly { ready: boolean; image: string; imageID: string }[];
  };
}

/** An operator deployed by `opkit deploy` from an image built and pushed to the test cluster's registry. */
export interface DeployedOperator {
  /** The image reference the Deployment names, and the digest the registry stored for it. */
  readonly image: string;
  readonly digest: string;
  /** The manager pod and what its container runs (`imageID` is `<repository>@<digest>`). */
  readonly pod: { readonly name: string; readonly image: string; readonly imageID: string };
  /** The manager's log so far. */
  log(): Promise<string>;
  /** `opkit undeploy`, then waits until the operator's namespace is gone. */
  undeploy(): Promise<void>;
}

/**
 * What `make docker-build docker-push deploy` does for a kubebuilder user: builds the operator's image,
 * pushes it to the cluster's registry, deploys `config/default` with it and waits for the manager pod to run
 * that image and be ready.
 */
export async function deployOperator(options: {
  readonly rest: KubeRest;
  readonly kubeconfig: string;
  readonly registry: string;
  readonly operatorDir: string;
  /** Repository in the registry, e.g. `memcached-operator`. */
  readonly repository: string;
  /** The namespace `config/default` deploys the manager to. */
  readonly namespace: string;
}): Promise<DeployedOperator> {
  const { rest, namespace } = options;
  const pushed = await pushOperatorImage({
    operatorDir: options.operatorDir,
    registry: options.registry,
    repository: options.repository,
    tags: ['dev'],
    layoutDir: join(mkdtempSync(join(tmpdir(), `${options.repository}-image-`)), 'layout'),
  });
  const [image = ''] = pushed.references;
  const env = { ...process.env, KUBECONFIG: options.kubeconfig };
  await run(process.execPath, [opkit, 'deploy', '--operator', options.operatorDir, '--image', image], {
    env,
  });
  const pod = await eventually(
    'the manager pod to run the pushed image and be ready',
    async () => {
      const pods = await rest.request<{ items: ManagerPod[] }>(
        'GET',
        `/api/v1/namespaces/${namespace}/pods`,
        {
          query: { labelSelector: 'control-plane=controller-manager' },
        },
      );
      const [first] = pods.items;
      const status = first?.status?.containerStatuses?.[0];
      return first && status?.ready
        ? { name: first.metadata.name, image: status.image, imageID: status.imageID }
        : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 500 },
  );
  return {
    image,
    digest: pushed.digest,
    pod,
    log: async () =>
      (await rest.getText(`/api/v1/namespaces/${namespace}/pods/${pod.name}/log`, 10_000)).body,
    async undeploy() {
      await run(process.execPath, [opkit, 'undeploy', '--operator', options.operatorDir], { env });
      await eventually(
        'the operator namespace to be gone',
        async () => {
          try {
            await rest.request('GET', `/api/v1/namespaces/${namespace}`);
            return false;
          } catch (error) {
            return (error as { status?: number }).status === 404;
          }
        },
        { timeoutMs: 120_000, intervalMs: 500 },
      );
    },
  };
}
