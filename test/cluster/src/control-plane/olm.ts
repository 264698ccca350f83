import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ClusterError } from '../errors.js';
import { KubeApiError, type KubeRest } from '../kube/rest.js';
import { NODE_NETWORK } from '../node/addresses.js';
import { ManagedProcess } from '../process/managed-process.js';

/** The namespaces OLM uses: its own (catalogs, operators) and the one with the global OperatorGroup. */
export const OLM_NAMESPACE = 'olm';
export const OPERATORS_NAMESPACE = 'operators';

async function create(rest: KubeRest, path: string, body: object): Promise<void> {
  try {
    await rest.request('POST', path, { body });
  } catch (error) {
    if (!(error instanceof KubeApiError && error.status === 409)) throw error;
  }
}

/** Installs OLM's CRDs and waits until the API server serves them. */
export async function installOlmCrds(rest: KubeRest, crdDir: string): Promise<void> {
  const files = readdirSync(crdDir).filter((f) => f.endsWith('.yaml'));
  for (const file of files) {
    await create(
      rest,
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      parse(readFileSync(join(crdDir, file), 'utf8')),
    );
  }
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await rest.request('GET', '/apis/operators.coreos.com/v1alpha1/clusterserviceversions', {
        query: { limit: 1 },
      });
      await rest.request('GET', '/apis/operators.coreos.com/v1/operatorgroups', { query: { limit: 1 } });
      return;
    } catch (error) {
      if (Date.now() > deadline) {
        throw new ClusterError(
          'CLUSTER_OLM_FAILED',
          `OLM's CRDs were not served within 60s: ${(error as Error).message}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** The `olm` and `catalog` namespaces plus the global OperatorGroup, as OLM's upstream install has them. */
export async function createOlmNamespaces(rest: KubeRest): Promise<void> {
  for (const name of [OLM_NAMESPACE, OPERATORS_NAMESPACE]) {
    await create(rest, '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }
  await create(rest, `/apis/operators.coreos.com/v1/namespaces/${OPERATORS_NAMESPACE}/operatorgroups`, {
    apiVersion: 'operators.coreos.com/v1',
    kind: 'OperatorGroup',
    metadata: { name: 'global-operators', namespace: OPERATORS_NAMESPACE },
    spec: {},
  });
}

/**
 * The environment of OLM's processes: without `CI` (when set, OLM wraps its client in a validating round
 * tripper that panics on objects without `olm.managed`), and with loopback never proxied.
 */
function olmEnvironment(kubeconfig: string): NodeJS.ProcessEnv {
  const { CI: _ci, ...rest } = process.env;
  const local = [
    '127.0.0.1',
    'localhost',
    '::1',
    NODE_NETWORK.podCidr,
    NODE_NETWORK.serviceCidr,
    `.${NODE_NETWORK.clusterDomain}`,
    '.svc',
  ].join(',');
  return { ...rest, KUBECONFIG: kubeconfig, NO_PROXY: local, no_proxy: local };
}

/**
 * Starts OLM's two operators as local processes, for clusters without a real node (where pods run nothing);
 * `olm` takes its kubeconfig from the environment only.
 */
export async function startOlmProcesses(options: {
  readonly binDir: string;
  readonly kubeconfig: string;
  readonly logDir: string;
  readonly cwd: string;
}): Promise<ManagedProcess[]> {
  const env = olmEnvironment(options.kubeconfig);
  const processSpec = (name: 'olm' | 'catalog', args: readonly string[]) =>
    new ManagedProcess({
      name,
      command: join(options.binDir, name),
      args: [...args],
      env,
      cwd: options.cwd,
      logFile: join(options.logDir, `${name}.log`),
    });
  const olm = processSpec('olm', [
    '--namespace',
    OLM_NAMESPACE,
    '--writeStatusName',
    '',
    '--writePackageServerStatusName',
    '',
  ]);
  const catalog = processSpec('catalog', [
    '--namespace',
    OLM_NAMESPACE,
    '--kubeconfig',
    options.kubeconfig,
    '--writeStatusName',
    '',
  ]);
  await olm.start();
  await catalog.start();
  return [olm, catalog];
}
