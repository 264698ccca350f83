import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { KubeApiError, type KubeRest } from '../kube/rest.js';
import { opkitScript } from '../opkit-command.js';
import { eventually } from './index.js';
import { pushOperatorImage } from './operator-image.js';

const run = promisify(execFile);

/** One HTTPS GET that does not verify the server's certificate; resolves with the status and body. */
function httpsGet(url: string, token?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        rejectUnauthorized: false,
        headers: token ? { authorization: `Bearer ${token}` } : {},
        timeout: 10_000,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} within 10 s`)));
    req.on('error', reject);
    req.end();
  });
}

/** The names of the CRDs `config/crd/bases` defines (what `opkit deploy` installs with the operator). */
function operatorCrds(operatorDir: string): string[] {
  const dir = join(operatorDir, 'config', 'crd', 'bases');
  return readdirSync(dir)
    .filter((file) => /\.ya?ml$/.test(file))
    .map(
      (file) =>
        (parse(readFileSync(join(dir, file), 'utf8')) as { metadata: { name: string } }).metadata.name,
    );
}

const notFound = (error: unknown) => error instanceof KubeApiError && error.status === 404;

const opkit = opkitScript();

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
  /**
   * GET `/metrics` over HTTPS through the operator's metrics Service (as a scraper that skips verifying the
   * self-signed certificate does), with `token` as the bearer; none: anonymous.
   */
  metrics(token?: string): Promise<{ readonly status: number; readonly body: string }>;
  /**
   * A token of a new ServiceAccount in the operator's namespace, bound to the operator's `metrics-reader`
   * ClusterRole when `reader` (the binding goes with `undeploy`).
   */
  scraperToken(name: string, options: { readonly reader: boolean }): Promise<string>;
  /**
   * `opkit undeploy --delete-crds` (which deletes the custom resources while the manager still runs, then
   * the rest), then waits until the operator's namespace and its CRDs are gone.
   */
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
  const crds = operatorCrds(options.operatorDir);
  // The layout (about 90 MB) is only the push's source: the registry keeps the image.
  const scratch = mkdtempSync(join(tmpdir(), `${options.repository}-image-`));
  const pushed = await pushOperatorImage({
    operatorDir: options.operatorDir,
    registry: options.registry,
    repository: options.repository,
    tags: ['dev'],
    layoutDir: join(scratch, 'layout'),
  }).finally(() => rmSync(scratch, { recursive: true, force: true }));
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
  const bindings: string[] = [];
  return {
    image,
    digest: pushed.digest,
    pod,
    log: async () =>
      (await rest.getText(`/api/v1/namespaces/${namespace}/pods/${pod.name}/log`, 10_000)).body,
    async metrics(token) {
      const service = await rest.request<{ spec: { clusterIP: string } }>(
        'GET',
        `/api/v1/namespaces/${namespace}/services/${options.repository}-controller-manager-metrics-service`,
      );
      const url = `https://${service.spec.clusterIP}:8443/metrics`;
      // kube-proxy routes a Service to a pod some time after the pod is ready; until then it refuses.
      return eventually(`the metrics Service routing to the manager (${url})`, () => httpsGet(url, token), {
        timeoutMs: 30_000,
        intervalMs: 250,
      });
    },
    async scraperToken(name, { reader }) {
      await rest.request('POST', `/api/v1/namespaces/${namespace}/serviceaccounts`, {
        body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } },
      });
      if (reader) {
        const binding = `${options.repository}-test-${name}`;
        await rest.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
          body: {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'ClusterRoleBinding',
            metadata: { name: binding },
            roleRef: {
              apiGroup: 'rbac.authorization.k8s.io',
              kind: 'ClusterRole',
              name: `${options.repository}-metrics-reader`,
            },
            subjects: [{ kind: 'ServiceAccount', name, namespace }],
          },
        });
        bindings.push(binding);
      }
      const answer = await rest.request<{ status: { token: string } }>(
        'POST',
        `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`,
        { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} } },
      );
      return answer.status.token;
    },
    async undeploy() {
      for (const binding of bindings.splice(0)) {
        await rest.request('DELETE', `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${binding}`);
      }
      // With --delete-crds, undeploy deletes the custom resources first and waits while the manager
      // finalizes them.
      await run(process.execPath, [opkit, 'undeploy', '--operator', options.operatorDir, '--delete-crds'], {
        env,
      });
      const gone = (what: string, path: string) =>
        eventually(
          what,
          async () => {
            try {
              await rest.request('GET', path);
              return false;
            } catch (error) {
              return notFound(error);
            }
          },
          { timeoutMs: 120_000, intervalMs: 500 },
        );
      await gone('the operator namespace to be gone', `/api/v1/namespaces/${namespace}`);
      for (const crd of crds) {
        await gone(`${crd} to be gone`, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd}`);
      }
    },
  };
}
