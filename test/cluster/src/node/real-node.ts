import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Pki } from '../control-plane/pki.js';
import { writeKubeconfig } from '../control-plane/pki.js';
import { freePort } from '../control-plane/ports.js';
import { httpHealthy, waitUntilReady } from '../control-plane/readiness.js';
import { ClusterError } from '../errors.js';
import { KubeApiError, type KubeRest } from '../kube/rest.js';
import type { ManagedProcess } from '../process/managed-process.js';
import { REAL_NODE_NAME } from './addresses.js';
import { createCgroupRoot } from './cgroups.js';
import { writeContainerdConfig } from './containerd.js';
import { corednsArgs, corednsRbac } from './coredns.js';
import { kubeProxyArgs } from './kube-proxy.js';
import { kubeletArgs } from './kubelet.js';
import { keepFenceFirst } from './network.js';

/** Where the node's programs come from: the cached Go builds and Debian's runc and CNI plugins. */
export interface NodeBinaries {
  readonly kubelet: string;
  readonly kubeProxy: string;
  readonly containerd: string;
  readonly containerdShim: string;
  readonly coredns: string;
  readonly runc: string;
  readonly cniBinDir: string;
}

/** The processes of a real node, by the name used in logs. */
export type NodeComponentName = 'containerd' | 'kubelet' | 'kube-proxy' | 'coredns';

export interface RealNodeStart {
  /** The node's directory (inside the cluster's). */
  readonly dir: string;
  readonly pki: Pki;
  /** The API server as pods and node components reach it: `https://<node IP>:<port>`. */
  readonly server: string;
  readonly rest: KubeRest;
  readonly binaries: NodeBinaries;
  /** `127.0.0.1:<port>` of the registry holding the cluster's images. */
  readonly registry: string;
  readonly launch: (name: NodeComponentName, command: string, args: string[]) => Promise<ManagedProcess>;
  readonly progress: (line: string) => void;
}

async function ensure(rest: KubeRest, path: string, body: object): Promise<void> {
  try {
    await rest.request('POST', path, { body });
  } catch (error) {
    if (!(error instanceof KubeApiError && error.status === 409)) throw error;
  }
}

/**
 * Starts containerd, the kubelet, kube-proxy and CoreDNS on the host network prepared by
 * `setUpNodeNetwork`, and resolves once the node is Ready and cluster DNS answers.
 */
export async function startRealNode(s: RealNodeStart): Promise<void> {
  const { dir, pki, binaries: bin, rest } = s;
  mkdirSync(dir, { recursive: true });
  const kubeconfig = (client: 'node' | 'kubeProxy' | 'coredns') => {
    const path = join(dir, `${client}.kubeconfig`);
    writeKubeconfig(path, s.server, pki, client);
    return path;
  };

  const containerdPaths = writeContainerdConfig({
    dir,
    registry: s.registry,
    cniBinDir: bin.cniBinDir,
    runc: bin.runc,
  });
  const containerd = await s.launch('containerd', bin.containerd, [
    `--config=${containerdPaths.config}`,
    '--log-level=warn',
  ]);
  await waitUntilReady(containerd, async () => existsSync(containerdPaths.socket), 30_000);
  s.progress('containerd ready');

  createCgroupRoot();
  // The kubelet makes its root dir a shared bind mount of itself while its servers start; a socket it is
  // renaming into place in that moment fails with "invalid cross-device link". Made shared here first, the
  // kubelet finds nothing to do. (Unmounted with the rest of the cluster dir on stop.)
  const rootDir = join(dir, 'kubelet-config', 'kubelet');
  mkdirSync(rootDir, { recursive: true });
  execFileSync('mount', ['--bind', rootDir, rootDir]);
  execFileSync('mount', ['--make-rshared', rootDir]);
  const kubeletHealthz = await freePort();
  const kubelet = await s.launch(
    'kubelet',
    bin.kubelet,
    kubeletArgs({
      dir: join(dir, 'kubelet-config'),
      kubeconfig: kubeconfig('node'),
      caCert: pki.caCert,
      servingCert: pki.kubeletServing.cert,
      servingKey: pki.kubeletServing.key,
      containerdSocket: containerdPaths.socket,
      port: await freePort(),
      healthzPort: kubeletHealthz,
    }),
  );

  const [proxyHealthz, proxyMetrics, dnsHealth, dnsReady] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  const kubeProxy = await s.launch(
    'kube-proxy',
    bin.kubeProxy,
    kubeProxyArgs({
      dir,
      kubeconfig: kubeconfig('kubeProxy'),
      healthzPort: proxyHealthz,
      metricsPort: proxyMetrics,
    }),
  );
  for (const object of corednsRbac()) {
    const kind = (object as { kind: string }).kind === 'ClusterRole' ? 'clusterroles' : 'clusterrolebindings';
    await ensure(rest, `/apis/rbac.authorization.k8s.io/v1/${kind}`, object);
  }
  const coredns = await s.launch(
    'coredns',
    bin.coredns,
    corednsArgs({ dir, kubeconfig: kubeconfig('coredns'), healthPort: dnsHealth, readyPort: dnsReady }),
  );

  await waitUntilReady(kubelet, () => httpHealthy(`http://127.0.0.1:${kubeletHealthz}/healthz`), 60_000);
  await waitUntilReady(
    kubelet,
    async () => {
      const node = await rest.request<{ status?: { conditions?: { type: string; status: string }[] } }>(
        'GET',
        `/api/v1/nodes/${REAL_NODE_NAME}`,
      );
      return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
    },
    60_000,
  );
  s.progress(`node ${REAL_NODE_NAME} Ready`);
  await waitUntilReady(kubeProxy, () => httpHealthy(`http://127.0.0.1:${proxyHealthz}/healthz`), 60_000);
  keepFenceFirst();
  await waitUntilReady(coredns, () => httpHealthy(`http://127.0.0.1:${dnsReady}/ready`), 60_000);
  if (!containerd.running) {
    throw new ClusterError('CLUSTER_START_FAILED', 'containerd exited while the node started');
  }
  s.progress('kube-proxy and CoreDNS ready');
}
