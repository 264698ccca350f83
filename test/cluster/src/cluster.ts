import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import {
  apiServerArgs,
  type ControlPlaneLayout,
  controllerManagerArgs,
  etcdArgs,
  KUBERNETES_SERVICE_IP,
  kwokArgs,
  SERVICE_CIDR,
  schedulerArgs,
} from './control-plane/components.js';
import { createOlmNamespaces, installOlmCrds, startOlmProcesses } from './control-plane/olm.js';
import { generatePki, writeKubeconfig } from './control-plane/pki.js';
import { assertPortFree, freePort } from './control-plane/ports.js';
import { httpHealthy, httpsHealthy, waitUntilReady } from './control-plane/readiness.js';
import { ClusterError } from './errors.js';
import { KubeApiError, KubeRest } from './kube/rest.js';
import { assertHostProgramsInstalled } from './kubelet/host-programs.js';
import { ProcessKubelet } from './kubelet/kubelet.js';
import { PodIpPool } from './kubelet/pod-ips.js';
import { DirectoryProvisioner, defaultStorageClass } from './kubelet/provisioner.js';
import { ManagedProcess, spawnDirectoryReaper } from './process/managed-process.js';
import { ensureComponents } from './toolchain/build.js';
import { controlPlaneRecipes, olmRecipe } from './toolchain/recipes.js';

/** Options of {@link startCluster}. */
export interface StartClusterOptions {
  /**
   * Number of fake nodes.
   * @default 3
   */
  readonly nodes?: number;
  /** A fixed apiserver port; by default a free one is picked, so clusters can run side by side. */
  readonly apiServerPort?: number;
  /**
   * Parent of the cluster's temp dir.
   * @default os.tmpdir()
   */
  readonly tempDir?: string;
  /** Progress lines (builds, component start-up). */
  readonly onProgress?: (line: string) => void;
  /**
   * First restart delay of a crashed process-backed container.
   * @default 1000
   */
  readonly restartBackoffMs?: number;
  /**
   * Also run OLM: its CRDs, the `olm` and `operators` namespaces with the global OperatorGroup, and the
   * `olm` and `catalog` operators (built from their Go module and cached like the control plane).
   * @default false
   */
  readonly olm?: boolean;
}

/** The control-plane processes, by the name used in logs. */
export type ComponentName =
  | 'etcd'
  | 'kube-apiserver'
  | 'kube-controller-manager'
  | 'kube-scheduler'
  | 'kwok'
  | 'olm'
  | 'catalog';

/** A running local cluster. */
export interface LocalCluster {
  /** The cluster's temp dir: PKI, etcd data, logs, pod directories. Removed by {@link LocalCluster.stop}. */
  readonly dir: string;
  /** Admin kubeconfig file (system:masters). */
  readonly kubeconfigPath: string;
  /** The same admin credentials, loaded. */
  readonly kubeConfig: KubeConfig;
  /** `https://127.0.0.1:<port>` */
  readonly server: string;
  /** Names of the fake nodes. */
  readonly nodeNames: readonly string[];
  /** etcd's client URL (its v3 JSON gateway serves `/v3/kv/...`), for tests that compact or edit storage. */
  readonly etcdEndpoint: string;
  /** Pod IPs are `127.<podSubnet>.x.y`. */
  readonly podSubnet: number;
  /** The pid of a process-backed pod's container (its first memcached/redis container by default). */
  pidOf(namespace: string, pod: string, container?: string): number | undefined;
  /** Process ids of the running control-plane components. */
  componentPids(): Partial<Record<ComponentName, number>>;
  /** Stops and starts one control-plane component (e.g. to test watch resilience); etcd keeps its data. */
  restart(
    component: ComponentName,
    options?: { downtimeMs?: number; whileDown?: () => Promise<void> },
  ): Promise<void>;
  /** Stops every process (pods included) and removes the temp dir. Safe to call twice. */
  stop(): Promise<void>;
}

const NODE_LABEL = 'opkit.dev/fake-node';

function fakeNode(name: string): object {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        [NODE_LABEL]: 'true',
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/hostname': name,
        'node-role.kubernetes.io/worker': '',
      },
    },
    // No taints: operator Deployments (OLM's too) carry no tolerations.
    spec: {},
  };
}

async function ensureObject(rest: KubeRest, path: string, body: object): Promise<void> {
  try {
    await rest.request('POST', path, { body });
  } catch (error) {
    if (!(error instanceof KubeApiError && error.status === 409)) throw error;
  }
}

async function waitFor(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new ClusterError(
    'CLUSTER_START_FAILED',
    `${what} did not happen within ${Math.round(timeoutMs / 1000)}s`,
  );
}

/**
 * Starts a throwaway control plane on 127.0.0.1: etcd, kube-apiserver (RBAC, Pod Security admission),
 * kube-controller-manager, kube-scheduler, kwok-managed fake nodes and the process kubelet that runs pods.
 * Components are built from their Go modules on first use and cached. Everything lives in one temp dir;
 * every process dies with the caller, even when it is killed.
 */
export async function startCluster(options: StartClusterOptions = {}): Promise<LocalCluster> {
  const progress = options.onProgress ?? (() => {});
  const started = Date.now();
  assertHostProgramsInstalled();
  if (options.apiServerPort !== undefined) await assertPortFree(options.apiServerPort, 'kube-apiserver');
  const built = await ensureComponents(
    options.olm ? [...controlPlaneRecipes, olmRecipe] : controlPlaneRecipes,
    {
      onProgress: progress,
    },
  );
  const bin = (component: string, file: string) => join(built[component]!.dir, file);

  const dir = mkdtempSync(join(options.tempDir ?? tmpdir(), 'opkit-cluster-'));
  const reaper = spawnDirectoryReaper(process.pid, dir);
  const logs = join(dir, 'logs');
  mkdirSync(logs, { recursive: true });
  const processes = new Map<ComponentName, ManagedProcess>();
  let pool: PodIpPool | undefined;
  let rest: KubeRest | undefined;
  let kubelet: ProcessKubelet | undefined;
  let provisioner: DirectoryProvisioner | undefined;
  let stopped = false;

  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await kubelet?.stop();
    await provisioner?.stop();
    for (const name of [
      'kwok',
      'kube-scheduler',
      'kube-controller-manager',
      'kube-apiserver',
      'etcd',
    ] as const) {
      await processes.get(name)?.close();
    }
    rest?.close();
    pool?.close();
    rmSync(dir, { recursive: true, force: true });
    reaper.cancel();
  };

  try {
    pool = PodIpPool.lease();
    const pki = await generatePki(join(dir, 'pki'), KUBERNETES_SERVICE_IP);
    const apiServerPort = options.apiServerPort ?? (await freePort());
    const server = `https://127.0.0.1:${apiServerPort}`;
    const kubeconfigPath = join(dir, 'admin.kubeconfig');
    const kubeconfigs = {
      controllerManager: join(dir, 'controller-manager.kubeconfig'),
      scheduler: join(dir, 'scheduler.kubeconfig'),
      kwok: join(dir, 'kwok.kubeconfig'),
    };
    writeKubeconfig(kubeconfigPath, server, pki, 'admin');
    writeKubeconfig(kubeconfigs.controllerManager, server, pki, 'controllerManager');
    writeKubeconfig(kubeconfigs.scheduler, server, pki, 'scheduler');
    writeKubeconfig(kubeconfigs.kwok, server, pki, 'kwok');
    const layout: ControlPlaneLayout = {
      dir,
      pki,
      etcdClientPort: await freePort(),
      etcdPeerPort: await freePort(),
      apiServerPort,
      controllerManagerPort: await freePort(),
      schedulerPort: await freePort(),
      kubeconfigs,
      serviceCidr: SERVICE_CIDR,
      nodeIP: pool.hostIP,
    };

    const launch = async (name: ComponentName, command: string, args: string[]) => {
      const proc = new ManagedProcess({ name, command, args, logFile: join(logs, `${name}.log`), cwd: dir });
      processes.set(name, proc);
      await proc.start();
      return proc;
    };

    const etcd = await launch('etcd', bin('etcd', 'etcd'), etcdArgs(layout));
    await waitUntilReady(etcd, () => httpHealthy(`http://127.0.0.1:${layout.etcdClientPort}/health`), 30_000);
    progress(`etcd ready on 127.0.0.1:${layout.etcdClientPort}`);

    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(kubeconfigPath);
    rest = new KubeRest(kubeConfig);
    const apiserver = await launch(
      'kube-apiserver',
      bin('kubernetes', 'kube-apiserver'),
      apiServerArgs(layout),
    );
    const api = rest;
    await waitUntilReady(apiserver, async () => (await api.getText('/readyz')).status === 200, 90_000);
    progress(`kube-apiserver ready on ${server}`);

    const nodeNames = Array.from({ length: options.nodes ?? 3 }, (_, i) => `opkit-node-${i}`);
    await Promise.all([
      ...nodeNames.map((n) => ensureObject(api, '/api/v1/nodes', fakeNode(n))),
      ensureObject(api, '/apis/storage.k8s.io/v1/storageclasses', defaultStorageClass()),
    ]);

    const kcm = await launch(
      'kube-controller-manager',
      bin('kubernetes', 'kube-controller-manager'),
      controllerManagerArgs(layout),
    );
    const scheduler = await launch(
      'kube-scheduler',
      bin('kubernetes', 'kube-scheduler'),
      schedulerArgs(layout),
    );
    const kwok = await launch('kwok', bin('kwok', 'kwok'), kwokArgs(layout, bin('kwok', 'node-stages.yaml')));
    await waitUntilReady(
      kcm,
      () => httpsHealthy(`https://127.0.0.1:${layout.controllerManagerPort}/healthz`),
      60_000,
    );
    await waitUntilReady(
      scheduler,
      () => httpsHealthy(`https://127.0.0.1:${layout.schedulerPort}/healthz`),
      60_000,
    );
    progress('kube-controller-manager and kube-scheduler ready');

    provisioner = new DirectoryProvisioner(api, join(dir, 'volumes'), (m) => progress(`volumes: ${m}`));
    provisioner.start();
    kubelet = new ProcessKubelet({
      rest: api,
      dir: join(dir, 'pods'),
      pool,
      restartBackoffMs: options.restartBackoffMs,
      log: (m) => progress(`kubelet: ${m}`),
    });
    kubelet.start();

    await waitUntilReady(
      kwok,
      async () => {
        const list = await api.request<{
          items: { status?: { conditions?: { type: string; status: string }[] } }[];
        }>('GET', '/api/v1/nodes', { query: { labelSelector: `${NODE_LABEL}=true` } });
        return (
          list.items.length === nodeNames.length &&
          list.items.every((n) =>
            n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
          )
        );
      },
      60_000,
    );
    // New namespaces are only usable once the controller-manager has given them a default ServiceAccount.
    await waitFor('the default ServiceAccount', 60_000, async () => {
      await api.request('GET', '/api/v1/namespaces/default/serviceaccounts/default');
      return true;
    });
    if (options.olm) {
      await installOlmCrds(api, join(built.olm!.dir, 'crds'));
      await createOlmNamespaces(api);
      const [olm, catalog] = await startOlmProcesses({
        binDir: built.olm!.dir,
        kubeconfig: kubeconfigPath,
        logDir: logs,
        cwd: dir,
      });
      processes.set('olm', olm!);
      processes.set('catalog', catalog!);
      // OLM is up once the olm operator has processed the global OperatorGroup (it records the target
      // namespaces in its status).
      await waitFor('OLM to handle the global OperatorGroup', 90_000, async () => {
        const group = await api.request<{ status?: { namespaces?: string[] } }>(
          'GET',
          '/apis/operators.coreos.com/v1/namespaces/operators/operatorgroups/global-operators',
        );
        return (group.status?.namespaces?.length ?? 0) > 0 && olm!.running && catalog!.running;
      });
      progress('OLM ready');
    }
    progress(
      `cluster ready in ${((Date.now() - started) / 1000).toFixed(1)}s (${nodeNames.length} nodes, dir ${dir})`,
    );

    const cluster: LocalCluster = {
      dir,
      kubeconfigPath,
      kubeConfig,
      server,
      nodeNames,
      podSubnet: pool.subnet,
      etcdEndpoint: `http://127.0.0.1:${layout.etcdClientPort}`,
      pidOf: (namespace, pod, container) => kubelet?.pidOf(namespace, pod, container),
      componentPids: () =>
        Object.fromEntries([...processes].map(([name, p]) => [name, p.pid]).filter(([, pid]) => pid)),
      async restart(component, opts = {}) {
        const proc = processes.get(component);
        if (!proc) throw new ClusterError('CLUSTER_UNKNOWN_COMPONENT', `no component named ${component}`);
        await proc.stop();
        await opts.whileDown?.();
        if (opts.downtimeMs) await new Promise((resolve) => setTimeout(resolve, opts.downtimeMs));
        await proc.start();
        if (component === 'kube-apiserver') {
          await waitUntilReady(proc, async () => (await api.getText('/readyz')).status === 200, 90_000);
        } else if (component === 'etcd') {
          await waitUntilReady(
            proc,
            () => httpHealthy(`http://127.0.0.1:${layout.etcdClientPort}/health`),
            30_000,
          );
        }
      },
      stop,
    };
    return cluster;
  } catch (error) {
    await stop();
    throw error;
  }
}
