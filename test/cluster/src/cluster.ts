import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { installOlm, olmInstallManifests } from '@opkit/cli/olm-install';
import { directClient } from '@opkit/controller-runtime/client';
import {
  apiServerAddress,
  apiServerArgs,
  type ControlPlaneLayout,
  controllerManagerArgs,
  etcdArgs,
  KUBERNETES_SERVICE_IP,
  kwokArgs,
  SERVICE_CIDR,
  schedulerArgs,
} from './control-plane/components.js';
import { writeControlPlaneDescription } from './control-plane/description.js';
import { writeKwokStages } from './control-plane/kwok-stages.js';
import { createOlmNamespaces, installOlmCrds, startOlmProcesses } from './control-plane/olm.js';
import { generatePki, writeKubeconfig } from './control-plane/pki.js';
import { assertPortFree, freePort } from './control-plane/ports.js';
import { httpHealthy, httpsHealthy, waitUntilReady } from './control-plane/readiness.js';
import { ClusterError } from './errors.js';
import { assertNodePackagesInstalled } from './host-packages.js';
import { ensureClusterImages, pushClusterImages } from './images/cluster-images.js';
import {
  type OlmImageInputs,
  olmImageReferences,
  type PrometheusImageInputs,
  prometheusImageReferences,
} from './images/definitions.js';
import {
  LOCAL_REGISTRY_HOSTING,
  type LocalRegistryRecord,
  nodeBaseImage,
  recordLocalRegistry,
} from './images/local-registry-hosting.js';
import { type ImageRegistry, startImageRegistry } from './images/registry.js';
import { KubeApiError, KubeRest } from './kube/rest.js';
import { NODE_NETWORK, REAL_NODE_NAME } from './node/addresses.js';
import { claimHost, type NodeHostClaim } from './node/host-claim.js';
import { setUpNodeNetwork } from './node/network.js';
import { DirectoryProvisioner, defaultStorageClass } from './node/provisioner.js';
import { type NodeBinaries, type NodeComponentName, startRealNode } from './node/real-node.js';
import { ManagedProcess, spawnDirectoryReaper } from './process/managed-process.js';
import { installPrometheus } from './prometheus/install.js';
import { ensureComponents } from './toolchain/build.js';
import { nodeRecipes } from './toolchain/node-recipes.js';
import {
  controlPlaneRecipes,
  olmRecipe,
  olmRecipes,
  prometheusRecipes,
  prometheusServerVersion,
} from './toolchain/recipes.js';
import { OLM_VERSION, OPM_VERSION, PROMETHEUS_OPERATOR_VERSION } from './toolchain/versions.js';

/** Options of {@link startCluster}. */
export interface StartClusterOptions {
  /**
   * Run pods on a real node: kubelet, containerd, runc, CNI bridge networking, kube-proxy and CoreDNS, with
   * images from a local registry. Needs root, and one real node runs per machine at a time; `false` gives a
   * kwok-only cluster (pods on kwok nodes are reported Running without running anything), which any number
   * of processes can start side by side.
   * @default true
   */
  readonly realNode?: boolean;
  /**
   * Number of kwok nodes, for scale. Beside a real node they carry the taint `opkit.dev/kwok=true:NoSchedule`,
   * so only pods that tolerate it land there.
   * @default 0 with a real node, 3 without
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
   * Also run OLM: with a real node, installed as `opkit olm install` does (without the packageserver) and
   * run in pods from OLM's image built into the cluster's registry; without one, its CRDs, the `olm` and
   * `operators` namespaces with the global OperatorGroup, and the `olm` and `catalog` operators as host
   * processes. Either way built from OLM's Go module and cached like the control plane.
   * @default false
   */
  readonly olm?: boolean;
  /**
   * Build and push OLM's images (OLM's own and opm's) to the registry of a real node without installing
   * OLM, for installing it later from them, e.g. with `opkit olm install`.
   * @default false (with `olm` they are pushed anyway)
   */
  readonly olmImages?: boolean;
  /**
   * Also run the Prometheus Operator (its CRDs, RBAC and Deployment, as its docs install it, in `monitoring`)
   * and one Prometheus there that selects every ServiceMonitor and PrometheusRule, scraping and evaluating
   * every 5 s, behind the Service `monitoring/prometheus:9090`. Its images are built from the Go modules of
   * the operator and Prometheus into the registry. Needs a real node. Prometheus' ServiceAccount
   * `monitoring/prometheus` has no RBAC of its own: a monitored namespace grants it what discovery needs.
   * @default false
   */
  readonly prometheus?: boolean;
  /**
   * Requests per second kube-controller-manager and kube-scheduler may send the API server, burst twice that.
   * Their defaults (20 and 50) make the controller-manager the bottleneck when thousands of Deployments are
   * created at once: benchmarks raise it to measure the operators rather than its rate limiter.
   * @default the components' own
   */
  readonly controlPlaneQps?: number;
}

/** The cluster's processes, by the name used in logs. */
export type ComponentName =
  | 'etcd'
  | 'kube-apiserver'
  | 'kube-controller-manager'
  | 'kube-scheduler'
  | 'kwok'
  | 'olm'
  | 'catalog'
  | 'registry'
  | NodeComponentName;

/** A running local cluster. */
export interface LocalCluster {
  /** The cluster's temp dir: PKI, etcd data, logs, the node's state. Removed by {@link LocalCluster.stop}. */
  readonly dir: string;
  /** Admin kubeconfig file (system:masters). */
  readonly kubeconfigPath: string;
  /** The same admin credentials, loaded. */
  readonly kubeConfig: KubeConfig;
  /** `https://<address>:<port>`: the node IP with a real node, 127.0.0.1 without. */
  readonly server: string;
  /** Names of the nodes: the real node first, then the kwok nodes. */
  readonly nodeNames: readonly string[];
  /** The real node's name and InternalIP, when there is one. */
  readonly realNode?: { readonly name: string; readonly ip: string };
  /**
   * `127.0.0.1:<port>` of the cluster's registry. The node pulls `docker.io`, `quay.io`, `gcr.io`,
   * `registry.k8s.io` and `ghcr.io` images from it, and images pushed to it by this name too.
   */
  readonly registry?: string;
  /**
   * The Node base image for operator images in {@link registry}, `<registry>/opkit/node:<version>`: what
   * `opkit deploy` builds on. Recorded with the registry in the standard ConfigMap
   * `kube-public/local-registry-hosting` (KEP-1755), its annotation `opkit.dev/base-image`.
   */
  readonly baseImage?: string;
  /** etcd's client URL (its v3 JSON gateway serves `/v3/kv/...`), for tests that compact or edit storage. */
  readonly etcdEndpoint: string;
  /** Process ids of the running components. */
  componentPids(): Partial<Record<ComponentName, number>>;
  /** Stops and starts one component (e.g. to test watch resilience); etcd keeps its data. */
  restart(
    component: ComponentName,
    options?: { downtimeMs?: number; whileDown?: () => Promise<void> },
  ): Promise<void>;
  /** Stops every process (pods included), undoes every change to the host and removes the temp dir. */
  stop(): Promise<void>;
}

const KWOK_NODE_LABEL = 'opkit.dev/fake-node';
/** Keeps ordinary pods off kwok nodes when a real node runs them. */
export const KWOK_TAINT = { key: 'opkit.dev/kwok', value: 'true', effect: 'NoSchedule' } as const;

function kwokNode(name: string, tainted: boolean): object {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        [KWOK_NODE_LABEL]: 'true',
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/hostname': name,
        'node-role.kubernetes.io/worker': '',
        type: 'kwok',
      },
    },
    // Untainted in a kwok-only cluster: operator Deployments (OLM's too) carry no tolerations.
    spec: tainted ? { taints: [KWOK_TAINT] } : {},
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
 * OLM is up once the olm operator has processed the global OperatorGroup (it records the target namespaces
 * in its status).
 */
async function waitForGlobalOperatorGroup(api: KubeRest, running: () => boolean): Promise<void> {
  await waitFor('OLM to handle the global OperatorGroup', 90_000, async () => {
    const group = await api.request<{ status?: { namespaces?: string[] } }>(
      'GET',
      '/apis/operators.coreos.com/v1/namespaces/operators/operatorgroups/global-operators',
    );
    return (group.status?.namespaces?.length ?? 0) > 0 && running();
  });
}

/** The node's programs: the cached Go builds, and Debian's runc and CNI plugins. */
function nodeBinaries(dirs: { kubernetes: string; containerd: string; coredns: string }): NodeBinaries {
  return {
    kubelet: join(dirs.kubernetes, 'kubelet'),
    kubeProxy: join(dirs.kubernetes, 'kube-proxy'),
    containerd: join(dirs.containerd, 'containerd'),
    containerdShim: join(dirs.containerd, 'containerd-shim-runc-v2'),
    coredns: join(dirs.coredns, 'coredns'),
    runc: '/usr/sbin/runc',
    cniBinDir: '/usr/lib/cni',
  };
}

/** The highest {@link StartClusterOptions.controlPlaneQps}: twice it must still be a 32-bit burst. */
export const MAX_CONTROL_PLANE_QPS = 100_000;

/**
 * Starts a throwaway cluster: etcd, kube-apiserver (RBAC, Pod Security admission), kube-controller-manager,
 * kube-scheduler, a real node (kubelet, containerd, kube-proxy, CoreDNS, a local image registry) unless
 * `realNode: false`, and kwok nodes for scale. Components are built from their Go modules, and images from
 * Debian packages, on first use and cached. Everything lives in one temp dir; every process dies with the
 * caller, and what the node set up on the host is undone, even when the caller is killed.
 */
export async function startCluster(options: StartClusterOptions = {}): Promise<LocalCluster> {
  const progress = options.onProgress ?? (() => {});
  const started = Date.now();
  const realNode = options.realNode ?? true;
  // OLM on a real node runs from its images, so they are built whenever it is installed.
  const olmImages = realNode && ((options.olm ?? false) || (options.olmImages ?? false));
  const qps = options.controlPlaneQps;
  if (qps !== undefined && !(Number.isInteger(qps) && qps >= 1 && qps <= MAX_CONTROL_PLANE_QPS)) {
    throw new ClusterError(
      'CLUSTER_INVALID_OPTIONS',
      `controlPlaneQps: expected a whole number from 1 to ${MAX_CONTROL_PLANE_QPS}, got ${qps}`,
    );
  }
  if (options.prometheus && !realNode) {
    throw new ClusterError('CLUSTER_INVALID_OPTIONS', 'prometheus: needs a real node (realNode: true)');
  }
  if (options.apiServerPort !== undefined) await assertPortFree(options.apiServerPort, 'kube-apiserver');
  if (realNode) assertNodePackagesInstalled();
  const recipes = [
    ...controlPlaneRecipes,
    ...(realNode ? nodeRecipes : []),
    // With a real node, OLM runs in pods from its own image and opm's, built from their sources.
    ...(olmImages ? olmRecipes : options.olm ? [olmRecipe] : []),
    ...(options.prometheus ? prometheusRecipes : []),
  ];
  const built = await ensureComponents(recipes, { onProgress: progress });
  const componentDir = (name: string) => {
    const component = built[name];
    if (!component) throw new ClusterError('CLUSTER_START_FAILED', `component ${name} was not built`);
    return component.dir;
  };
  const bin = (component: string, file: string) => join(componentDir(component), file);
  const olmImageInputs = (): OlmImageInputs => ({
    olmVersion: OLM_VERSION,
    opmVersion: OPM_VERSION,
    olm: bin('olm', 'olm'),
    catalog: bin('olm', 'catalog'),
    packageServer: bin('olm', 'package-server'),
    cpb: bin('olm', 'cpb'),
    copyContent: bin('olm', 'copy-content'),
    opm: bin('opm', 'opm'),
    grpcHealthProbe: bin('grpc-health-probe', 'grpc_health_probe'),
  });
  const prometheusImageInputs = (): PrometheusImageInputs => ({
    operatorVersion: PROMETHEUS_OPERATOR_VERSION,
    prometheusVersion: prometheusServerVersion(),
    operator: bin('prometheus-operator', 'operator'),
    configReloader: bin('prometheus-operator', 'prometheus-config-reloader'),
    prometheus: bin('prometheus', 'prometheus'),
  });
  const node = realNode
    ? nodeBinaries({
        kubernetes: componentDir('kubernetes'),
        containerd: componentDir('containerd'),
        coredns: componentDir('coredns'),
      })
    : undefined;

  const dir = mkdtempSync(join(options.tempDir ?? tmpdir(), 'opkit-cluster-'));
  const reaper = spawnDirectoryReaper(process.pid, dir);
  const logs = join(dir, 'logs');
  mkdirSync(logs, { recursive: true });
  const processes = new Map<ComponentName, ManagedProcess>();
  let rest: KubeRest | undefined;
  let provisioner: DirectoryProvisioner | undefined;
  let registry: ImageRegistry | undefined;
  let hostClaim: NodeHostClaim | undefined;
  let stopped = false;

  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await provisioner?.stop();
    // The node first, while the API server still answers the kubelet's last status updates.
    for (const name of [
      'coredns',
      'kube-proxy',
      'kubelet',
      'containerd',
      'registry',
      'olm',
      'catalog',
      'kwok',
      'kube-scheduler',
      'kube-controller-manager',
      'kube-apiserver',
      'etcd',
    ] as const) {
      await processes.get(name)?.close();
    }
    rest?.close();
    // Containers, mounts, network and sysctls of the node; then the temp dir.
    hostClaim?.release();
    rmSync(dir, { recursive: true, force: true });
    reaper.cancel();
  };

  try {
    if (node) {
      hostClaim = claimHost(dir, [
        node.kubelet,
        node.kubeProxy,
        node.containerd,
        node.containerdShim,
        node.coredns,
      ]);
      setUpNodeNetwork();
    }
    // The node's images are built (or taken from the cache) and pushed while the control plane starts.
    const imagesPushed = node
      ? (async () => {
          registry = await startImageRegistry(join(dir, 'registry'), join(logs, 'registry.log'));
          processes.set('registry', registry.process);
          const images = await ensureClusterImages({
            pauseBinary: bin('pause', 'pause'),
            onProgress: progress,
            ...(olmImages ? { olm: olmImageInputs() } : {}),
            ...(options.prometheus ? { prometheus: prometheusImageInputs() } : {}),
          });
          await pushClusterImages(images, registry.host, progress);
          const baseImage = nodeBaseImage(images, registry.host);
          if (baseImage === undefined)
            throw new ClusterError('CLUSTER_START_FAILED', 'the cluster images hold no Node base image');
          return { host: registry.host, baseImage };
        })()
      : undefined;
    // Not awaited until the node needs it; a failure must not surface as an unhandled rejection meanwhile.
    imagesPushed?.catch(() => {});

    const pki = await generatePki(join(dir, 'pki'), KUBERNETES_SERVICE_IP);
    const apiServerPort = options.apiServerPort ?? (await freePort());
    const server = `https://${apiServerAddress({ realNode })}:${apiServerPort}`;
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
      realNode,
      ...(qps === undefined ? {} : { controlPlaneQps: qps }),
    };
    const kubeApiServer = bin('kubernetes', 'kube-apiserver');
    // For test files that run another API server of this cluster (`startApiServerReplica`), knowing only the
    // admin kubeconfig beside it.
    writeControlPlaneDescription({ format: 1, server, layout, binaries: { kubeApiServer } });

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
    const apiserver = await launch('kube-apiserver', kubeApiServer, apiServerArgs(layout));
    const api = rest;
    await waitUntilReady(apiserver, async () => (await api.getText('/readyz')).status === 200, 90_000);
    progress(`kube-apiserver ready on ${server}`);

    const kwokNodeNames = Array.from(
      { length: options.nodes ?? (realNode ? 0 : 3) },
      (_, i) => `opkit-node-${i}`,
    );
    await Promise.all([
      ...kwokNodeNames.map((n) => ensureObject(api, '/api/v1/nodes', kwokNode(n, realNode))),
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
    const kwok =
      kwokNodeNames.length > 0
        ? await launch(
            'kwok',
            bin('kwok', 'kwok'),
            kwokArgs(layout, [
              bin('kwok', 'node-stages.yaml'),
              bin('kwok', 'pod-stages.yaml'),
              writeKwokStages(dir),
            ]),
          )
        : undefined;
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

    let registryRecord: LocalRegistryRecord | undefined;
    if (node && imagesPushed) {
      registryRecord = await imagesPushed;
      await startRealNode({
        dir: join(dir, 'node'),
        pki,
        server,
        rest: api,
        binaries: node,
        registry: registryRecord.host,
        launch,
        progress,
      });
      // Where tools push images the node pulls, as local clusters tell them (`opkit deploy` reads it).
      await recordLocalRegistry(api, registryRecord);
      progress(
        `registry ${registryRecord.host} (base image ${registryRecord.baseImage}), recorded in ConfigMap ${LOCAL_REGISTRY_HOSTING.namespace}/${LOCAL_REGISTRY_HOSTING.name}`,
      );
    }
    if (kwok) {
      await waitUntilReady(
        kwok,
        async () => {
          const list = await api.request<{
            items: { status?: { conditions?: { type: string; status: string }[] } }[];
          }>('GET', '/api/v1/nodes', { query: { labelSelector: `${KWOK_NODE_LABEL}=true` } });
          return (
            list.items.length === kwokNodeNames.length &&
            list.items.every((n) =>
              n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
            )
          );
        },
        60_000,
      );
    }
    // New namespaces are only usable once the controller-manager has given them a default ServiceAccount.
    await waitFor('the default ServiceAccount', 60_000, async () => {
      await api.request('GET', '/api/v1/namespaces/default/serviceaccounts/default');
      return true;
    });
    if (options.olm && realNode) {
      // OLM's own install, as `opkit olm install` lays it out, run from the images built into the registry.
      const images = olmImageReferences({ olm: OLM_VERSION, opm: OPM_VERSION });
      const client = directClient(kubeConfig);
      try {
        await installOlm(
          client,
          olmInstallManifests({
            version: OLM_VERSION,
            image: images.util,
            opmImage: images.opm,
            packageServer: false,
          }),
          { timeoutMs: 180_000, log: (line) => progress(`OLM: ${line.trim()}`) },
        );
      } finally {
        await client.close();
      }
      await waitForGlobalOperatorGroup(api, () => true);
      progress('OLM ready');
    } else if (options.olm) {
      await installOlmCrds(api, join(componentDir('olm'), 'crds'));
      await createOlmNamespaces(api);
      const [olm, catalog] = await startOlmProcesses({
        binDir: componentDir('olm'),
        kubeconfig: kubeconfigPath,
        logDir: logs,
        cwd: dir,
      });
      if (!olm || !catalog) throw new ClusterError('CLUSTER_START_FAILED', 'OLM did not start');
      processes.set('olm', olm);
      processes.set('catalog', catalog);
      await waitForGlobalOperatorGroup(api, () => olm.running && catalog.running);
      progress('OLM ready');
    }
    if (options.prometheus) {
      const images = prometheusImageReferences({
        operator: PROMETHEUS_OPERATOR_VERSION,
        prometheus: prometheusServerVersion(),
      });
      const { url } = await installPrometheus(
        api,
        componentDir('prometheus-operator'),
        { ...images, prometheusVersion: prometheusServerVersion() },
        progress,
      );
      progress(`Prometheus ready at ${url}`);
    }
    const nodeNames = [...(realNode ? [REAL_NODE_NAME] : []), ...kwokNodeNames];
    progress(
      `cluster ready in ${((Date.now() - started) / 1000).toFixed(1)}s (${realNode ? 'a real node' : 'no real node'}, ${kwokNodeNames.length} kwok nodes, dir ${dir})`,
    );

    const cluster: LocalCluster = {
      dir,
      kubeconfigPath,
      kubeConfig,
      server,
      nodeNames,
      ...(realNode ? { realNode: { name: REAL_NODE_NAME, ip: NODE_NETWORK.nodeIP } } : {}),
      ...(registryRecord ? { registry: registryRecord.host, baseImage: registryRecord.baseImage } : {}),
      etcdEndpoint: `http://127.0.0.1:${layout.etcdClientPort}`,
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
