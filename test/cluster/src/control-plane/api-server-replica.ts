import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { ClusterError } from '../errors.js';
import { KubeRest } from '../kube/rest.js';
import { ManagedProcess } from '../process/managed-process.js';
import { apiServerArgs } from './components.js';
import { readControlPlaneDescription } from './description.js';
import { writeKubeconfig } from './pki.js';
import { freePort } from './ports.js';
import { waitUntilReady } from './readiness.js';

/**
 * One more kube-apiserver of a running cluster, as in a control plane of several: the same etcd, certificates,
 * service-account keys and flags as the cluster's own, on a port of its own. A test may stop and restart it
 * while the rest of the cluster keeps talking to the cluster's own API server.
 */
export interface ApiServerReplica {
  /** `https://127.0.0.1:<port>`: loopback, which the cluster's serving certificate covers. */
  readonly server: string;
  /** An admin kubeconfig whose server is the replica (in the cluster's dir, removed by {@link stop}). */
  readonly kubeconfigPath: string;
  /** The same admin credentials, loaded. */
  readonly kubeConfig: KubeConfig;
  /** The process id while it runs. */
  readonly pid: number | undefined;
  /** Stops the replica, waits `downtimeMs`, starts it again and resolves once `/readyz` answers 200. */
  restart(options?: { downtimeMs?: number }): Promise<void>;
  /** Stops the replica for good and removes its kubeconfig; its log stays with the cluster's. */
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 90_000;

class RunningReplica implements ApiServerReplica {
  readonly #process: ManagedProcess;
  readonly #rest: KubeRest;
  #stopped = false;

  constructor(
    readonly server: string,
    readonly kubeconfigPath: string,
    readonly kubeConfig: KubeConfig,
    apiServer: ManagedProcess,
  ) {
    this.#process = apiServer;
    this.#rest = new KubeRest(kubeConfig);
  }

  get pid(): number | undefined {
    return this.#process.pid;
  }

  async start(): Promise<void> {
    await this.#process.start();
    await waitUntilReady(
      this.#process,
      async () => (await this.#rest.getText('/readyz')).status === 200,
      READY_TIMEOUT_MS,
    );
  }

  async restart(options: { downtimeMs?: number } = {}): Promise<void> {
    if (this.#stopped)
      throw new ClusterError(
        'CLUSTER_REPLICA_STOPPED',
        'the API server replica was stopped: start another with startApiServerReplica',
      );
    await this.#process.stop();
    if (options.downtimeMs) await new Promise((resolve) => setTimeout(resolve, options.downtimeMs));
    await this.start();
  }

  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    await this.#process.close();
    this.#rest.close();
    rmSync(this.kubeconfigPath, { force: true });
  }
}

/**
 * Starts another API server of the cluster whose admin kubeconfig is `kubeconfigPath` (the shared test
 * cluster's, or one started by `opkit-cluster up`), from the description the cluster keeps in its dir. Its
 * endpoint reconciler is off, so it never touches the `kubernetes` Service's endpoints.
 *
 * Call `stop()` in `afterAll`. Should a test file fail to, the replica still dies with the process that
 * started it (the vitest worker): the kernel kills it when its parent exits, however it exits.
 */
export async function startApiServerReplica(kubeconfigPath: string): Promise<ApiServerReplica> {
  const { layout, binaries } = readControlPlaneDescription(kubeconfigPath);
  const port = await freePort();
  const server = `https://127.0.0.1:${port}`;
  const name = `kube-apiserver-replica-${port}`;
  const replicaKubeconfig = join(layout.dir, `${name}.kubeconfig`);
  writeKubeconfig(replicaKubeconfig, server, layout.pki, 'admin');
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(replicaKubeconfig);
  const apiServer = new ManagedProcess({
    name,
    command: binaries.kubeApiServer,
    args: [
      ...apiServerArgs(layout, { address: '127.0.0.1', port, reconcilesEndpoints: false }),
      // An API server names its identity lease after its host name, which the replica shares with the
      // cluster's own: both would renew one lease as theirs, in conflict every ten seconds. The proxy to peers
      // of other versions finds them by those leases, so it goes too.
      '--feature-gates=APIServerIdentity=false,UnknownVersionInteroperabilityProxy=false',
    ],
    logFile: join(layout.dir, 'logs', `${name}.log`),
    cwd: layout.dir,
  });
  const replica = new RunningReplica(server, replicaKubeconfig, kubeConfig, apiServer);
  try {
    await replica.start();
  } catch (error) {
    await replica.stop();
    throw error;
  }
  return replica;
}
