import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { apiServerArgs, etcdArgs, KUBERNETES_SERVICE_IP, SERVICE_CIDR } from '../control-plane/components.js';
import { generatePki, generateWebhookPki, writeKubeconfig } from '../control-plane/pki.js';
import { freePort } from '../control-plane/ports.js';
import { httpHealthy, waitUntilReady } from '../control-plane/readiness.js';
import { ClusterError } from '../errors.js';
import { KubeRest } from '../kube/rest.js';
import { ManagedProcess, spawnDirectoryReaper } from '../process/managed-process.js';
import { ensureComponents, isComplete } from '../toolchain/build.js';
import { cacheRoot } from '../toolchain/cache.js';
import { etcdRecipe, kubernetesRecipe } from '../toolchain/recipes.js';
import { ObjectInstaller, REPLACE_CRDS_ENV } from './install.js';
import {
  crdForTarget,
  type ManifestObject,
  readCrdDirectory,
  readWebhookConfigurations,
  type WebhookTarget,
  webhookConfigurationForTarget,
} from './manifests.js';

/** Options of {@link startTestEnvironment}. */
export interface TestEnvironmentOptions {
  /**
   * Directories whose CustomResourceDefinitions are installed, each waited for until Established and served.
   * @default `config/crd/bases` of the current directory, when it exists
   */
  readonly crdDirectoryPaths?: readonly string[];
  /**
   * Files whose Mutating- and ValidatingWebhookConfigurations are installed, calling the webhook server under
   * test ({@link TestEnvironment.webhook}) instead of their Service.
   * @default `config/webhook/manifests.yaml` of the current directory, when it exists
   */
  readonly webhookConfigPaths?: readonly string[];
  /**
   * Use the cluster of `KUBECONFIG` (or `~/.kube/config`) instead of starting etcd and kube-apiserver.
   * @default `OPKIT_USE_EXISTING_CLUSTER=true`
   */
  readonly useExistingCluster?: boolean;
  /**
   * On an existing cluster, replace a CRD of the same name whose spec differs (`stop()` puts it back);
   * otherwise such a CRD is refused.
   * @default `OPKIT_ENVTEST_REPLACE_CRDS=true`
   */
  readonly replaceExistingCrds?: boolean;
  /** Progress lines: builds of missing components, start-up of each process. */
  readonly onProgress?: (line: string) => void;
}

/** Where the operator under test serves its webhooks, as the installed configurations expect. */
export interface TestEnvironmentWebhook {
  /** 127.0.0.1: the API server calls `https://<host>:<port><path>`. */
  readonly host: string;
  /** A free port: the manager's webhook port. */
  readonly port: number;
  /** Holds `tls.crt` and `tls.key` for the host, signed by the CA the configurations trust: the `certPath`. */
  readonly certDir: string;
}

/** A running API server (or an existing cluster) with the operator's CRDs and webhook configurations. */
export interface TestEnvironment {
  /** Admin kubeconfig file. */
  readonly kubeconfigPath: string;
  /** The same credentials, loaded. */
  readonly kubeConfig: KubeConfig;
  /** Whether this is an existing cluster (nothing was started). */
  readonly usesExistingCluster: boolean;
  readonly webhook: TestEnvironmentWebhook;
  /**
   * Stops etcd and kube-apiserver and removes the temp dir; on an existing cluster, removes the webhook
   * configurations and CRDs it created and puts back the CRDs it replaced (`replaceExistingCrds`).
   */
  stop(): Promise<void>;
}

const WEBHOOK_HOST = '127.0.0.1';
/** Only these two are built when missing: envtest needs no kubelet, scheduler or controller-manager. */
const ENVTEST_RECIPES = [etcdRecipe, kubernetesRecipe] as const;

function defaultPaths(relative: string): string[] {
  const path = resolve(relative);
  return existsSync(path) ? [path] : [];
}

/** The kubeconfig an existing cluster is reached with: the first file of `KUBECONFIG`, else `~/.kube/config`. */
function existingKubeconfigPath(): string {
  const first = (process.env.KUBECONFIG ?? '').split(':').find((entry) => entry.length > 0);
  const path = first ?? join(homedir(), '.kube', 'config');
  if (!existsSync(path)) {
    throw new ClusterError(
      'CLUSTER_INVALID_OPTIONS',
      `OPKIT_USE_EXISTING_CLUSTER: no kubeconfig at ${path}: set KUBECONFIG to the cluster's kubeconfig`,
    );
  }
  return path;
}

interface StartedApiServer {
  readonly kubeconfigPath: string;
  readonly processes: readonly ManagedProcess[];
}

/** etcd and kube-apiserver on loopback with free ports, everything in `dir`; resolves once /readyz is 200. */
async function startApiServer(dir: string, progress: (line: string) => void): Promise<StartedApiServer> {
  const missing = ENVTEST_RECIPES.filter((recipe) => !isComplete(recipe));
  if (missing.length > 0) {
    progress(
      `${missing.map((r) => `${r.name} v${r.version}`).join(' and ')} not in ${join(cacheRoot(), 'bin')}: building with Go (once)`,
    );
  }
  const built = await ensureComponents(ENVTEST_RECIPES, { onProgress: progress });
  const bin = (component: string, file: string) => join(built[component]?.dir ?? '', file);
  const logs = join(dir, 'logs');
  mkdirSync(logs, { recursive: true });
  const [etcdClientPort, etcdPeerPort, apiServerPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const processes: ManagedProcess[] = [];
  const launch = async (name: string, command: string, args: string[]) => {
    const proc = new ManagedProcess({ name, command, args, logFile: join(logs, `${name}.log`), cwd: dir });
    processes.push(proc);
    await proc.start();
    return proc;
  };
  try {
    // etcd needs no certificates: it starts while they are made.
    const etcd = await launch('etcd', bin('etcd', 'etcd'), etcdArgs({ dir, etcdClientPort, etcdPeerPort }));
    const [pki] = await Promise.all([
      generatePki(join(dir, 'pki'), KUBERNETES_SERVICE_IP),
      waitUntilReady(etcd, () => httpHealthy(`http://127.0.0.1:${etcdClientPort}/health`), 30_000).then(() =>
        progress(`etcd ready on 127.0.0.1:${etcdClientPort}`),
      ),
    ]);
    const server = `https://127.0.0.1:${apiServerPort}`;
    const kubeconfigPath = join(dir, 'admin.kubeconfig');
    writeKubeconfig(kubeconfigPath, server, pki, 'admin');
    const layout = { pki, etcdClientPort, apiServerPort, serviceCidr: SERVICE_CIDR, realNode: false };
    // No controller-manager creates the namespaces' `default` ServiceAccounts, so pods are not refused for
    // lacking one (as in controller-runtime's envtest).
    const args = [...apiServerArgs(layout), '--disable-admission-plugins=ServiceAccount'];
    const apiServer = await launch('kube-apiserver', bin('kubernetes', 'kube-apiserver'), args);
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(kubeconfigPath);
    const rest = new KubeRest(kubeConfig);
    try {
      await waitUntilReady(apiServer, async () => (await rest.getText('/readyz')).status === 200, 90_000);
    } finally {
      rest.close();
    }
    progress(`kube-apiserver ready on ${server}`);
    return { kubeconfigPath, processes };
  } catch (error) {
    for (const proc of processes.reverse()) await proc.stop(1_000).then(() => proc.close());
    throw error;
  }
}

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** The object under its name with `suffix` (cut to the 253 characters a name may have). */
function runNamed(object: ManifestObject, suffix: string): ManifestObject {
  const name = `${object.metadata.name.slice(0, 253 - suffix.length)}${suffix}`;
  return { ...object, metadata: { ...object.metadata, name } };
}

function settledValue<T>(result: PromiseSettledResult<T>): T {
  if (result.status === 'rejected') throw result.reason;
  return result.value;
}

/**
 * Starts a test environment like controller-runtime's envtest: etcd and kube-apiserver only (no nodes, no
 * controller-manager: Deployments get no ReplicaSets, namespaces are never finalized), on loopback with free
 * ports, as any user, from the component cache (`OPKIT_CACHE_DIR`, else `~/.cache/opkit`; etcd and
 * Kubernetes are built there with Go when missing). Then installs the CRDs (waiting until they are served)
 * and the webhook configurations, their Services and the CRDs' conversion Services replaced by
 * `https://127.0.0.1:<webhook.port>` with a CA made for the run, whose serving certificate is in
 * `webhook.certDir`. With `useExistingCluster`, nothing is started and the same objects are installed into
 * the kubeconfig's cluster, without touching its own: the webhook configurations under names unique to the run,
 * a CRD that exists and differs refused unless `replaceExistingCrds`; `stop()` (also on SIGINT and SIGTERM)
 * takes them out again.
 */
export async function startTestEnvironment(options: TestEnvironmentOptions = {}): Promise<TestEnvironment> {
  const progress = options.onProgress ?? (() => {});
  const started = Date.now();
  const useExisting = options.useExistingCluster ?? process.env.OPKIT_USE_EXISTING_CLUSTER === 'true';
  const replaceCrds = options.replaceExistingCrds ?? process.env[REPLACE_CRDS_ENV] === 'true';
  const crdDirectories = options.crdDirectoryPaths ?? defaultPaths('config/crd/bases');
  const webhookFiles = options.webhookConfigPaths ?? defaultPaths('config/webhook/manifests.yaml');
  // Read first: a missing file fails before anything starts.
  const crds = crdDirectories.flatMap((directory) => readCrdDirectory(resolve(directory)));
  const configurations = webhookFiles.flatMap((file) => readWebhookConfigurations(resolve(file)));

  const dir = mkdtempSync(join(tmpdir(), 'opkit-envtest-'));
  const reaper = spawnDirectoryReaper(process.pid, dir);
  let processes: readonly ManagedProcess[] = [];
  let installer: ObjectInstaller | undefined;
  let rest: KubeRest | undefined;
  let stopped = false;
  // Killed by SIGINT or SIGTERM, a run on an existing cluster must not leave admission and conversion aimed at
  // a loopback port that is gone: the objects come out first, then the signal takes its course.
  const onSignal = (signal: NodeJS.Signals) => {
    void stop()
      .catch(() => {})
      .finally(() => process.kill(process.pid, signal));
  };
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    for (const signal of SIGNALS) process.off(signal, onSignal);
    try {
      // Started processes take everything with them; an existing cluster keeps only what it had.
      if (useExisting) await installer?.uninstall();
    } finally {
      rest?.close();
      // A throwaway API server need not drain its connections: a second's grace, then SIGKILL.
      for (const proc of [...processes].reverse()) await proc.stop(1_000).then(() => proc.close());
      rmSync(dir, { recursive: true, force: true });
      reaper.cancel();
    }
  };
  if (useExisting) for (const signal of SIGNALS) process.once(signal, onSignal);

  try {
    const certDir = join(dir, 'webhook-certs');
    // allSettled, not all: when the webhook PKI or the port fails, the API server is still starting; stop()
    // must wait for it to have its processes, or they would outlive the failed start.
    const [apiServer, pki, port] = await Promise.allSettled([
      useExisting
        ? Promise.resolve().then(existingKubeconfigPath)
        : startApiServer(dir, progress).then((started) => {
            processes = started.processes;
            return started.kubeconfigPath;
          }),
      generateWebhookPki(join(dir, 'webhook-pki'), certDir, WEBHOOK_HOST),
      freePort(),
    ]);
    const kubeconfigPath = settledValue(apiServer);
    const webhookPki = settledValue(pki);
    const webhookPort = settledValue(port);
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(kubeconfigPath);
    rest = new KubeRest(kubeConfig);
    installer = new ObjectInstaller(rest);
    const target: WebhookTarget = { host: WEBHOOK_HOST, port: webhookPort, caCert: webhookPki.caCert };
    const installing = installer;
    for (const crd of crds) {
      const forTarget = crdForTarget(crd, target);
      await (useExisting ? installing.applyCrd(forTarget, replaceCrds) : installing.apply(forTarget));
    }
    await Promise.all(crds.map((crd) => installing.waitUntilServed(crd)));
    // On an existing cluster, under a name of the run's own: the cluster's configurations stay as they are.
    const suffix = `-envtest-${randomBytes(4).toString('hex')}`;
    for (const configuration of configurations) {
      const forTarget = webhookConfigurationForTarget(configuration, target);
      if (useExisting) await installing.create(runNamed(forTarget, suffix));
      else await installing.apply(forTarget);
    }
    progress(
      `test environment ready in ${((Date.now() - started) / 1000).toFixed(1)}s` +
        `${useExisting ? ` (existing cluster of ${kubeconfigPath})` : ''}: ` +
        `${crds.length} CRD(s), ${configurations.length} webhook configuration(s)`,
    );
    return {
      kubeconfigPath,
      kubeConfig,
      usesExistingCluster: useExisting,
      webhook: { host: WEBHOOK_HOST, port: webhookPort, certDir },
      stop,
    };
  } catch (error) {
    await stop().catch(() => {});
    throw error;
  }
}
