import { join } from 'node:path';
import { NODE_NETWORK } from '../node/addresses.js';
import { FRONT_PROXY_CLIENT, type Pki } from './pki.js';

/** Everything the component command lines are built from. */
export interface ControlPlaneLayout {
  readonly dir: string;
  readonly pki: Pki;
  readonly etcdClientPort: number;
  readonly etcdPeerPort: number;
  readonly apiServerPort: number;
  readonly controllerManagerPort: number;
  readonly schedulerPort: number;
  readonly kubeconfigs: {
    readonly controllerManager: string;
    readonly scheduler: string;
    readonly kwok: string;
  };
  readonly serviceCidr: string;
  /**
   * Whether a real node runs pods: the API server then listens on the node IP (pods reach it through the
   * `kubernetes` Service) and talks to the kubelet with a client certificate.
   */
  readonly realNode: boolean;
  /**
   * Requests per second the controller-manager and the scheduler may send the API server (their client-side
   * rate limit; the burst is twice that). Their own defaults, 20 and 50, when absent.
   */
  readonly controlPlaneQps?: number;
}

/** `--kube-api-qps` and `--kube-api-burst` for {@link ControlPlaneLayout.controlPlaneQps}, when it is set. */
function apiRateFlags(l: ControlPlaneLayout): string[] {
  const qps = l.controlPlaneQps;
  return qps === undefined ? [] : [`--kube-api-qps=${qps}`, `--kube-api-burst=${2 * qps}`];
}

/** Services of every cluster come from a range reserved for test networks, never a real network's. */
export const SERVICE_CIDR = NODE_NETWORK.serviceCidr;
/** The first address of the service range: the in-cluster `kubernetes` Service. */
export const KUBERNETES_SERVICE_IP = NODE_NETWORK.kubernetesServiceIP;

/** The API server's address: the node IP when a real node's pods must reach it, loopback otherwise. */
export function apiServerAddress(l: Pick<ControlPlaneLayout, 'realNode'>): string {
  return l.realNode ? NODE_NETWORK.nodeIP : '127.0.0.1';
}

/** What etcd's command line is built from. */
export type EtcdLayout = Pick<ControlPlaneLayout, 'dir' | 'etcdClientPort' | 'etcdPeerPort'>;
/** What kube-apiserver's command line is built from (envtest starts it without the other components). */
export type ApiServerLayout = Pick<
  ControlPlaneLayout,
  'pki' | 'etcdClientPort' | 'apiServerPort' | 'serviceCidr' | 'realNode'
>;

export function etcdArgs(l: EtcdLayout): string[] {
  const client = `http://127.0.0.1:${l.etcdClientPort}`;
  const peer = `http://127.0.0.1:${l.etcdPeerPort}`;
  return [
    `--name=opkit`,
    `--data-dir=${join(l.dir, 'etcd')}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=opkit=${peer}`,
    // Tests need no durability; skipping fsync makes every write several times faster.
    '--unsafe-no-fsync=true',
    '--quota-backend-bytes=8589934592',
    '--log-level=warn',
  ];
}

/**
 * Where one kube-apiserver process of the cluster listens, and whether it keeps the `kubernetes` Service's
 * endpoints: the cluster's own, or a replica (`startApiServerReplica`).
 */
export interface ApiServerListener {
  readonly address: string;
  readonly port: number;
  /**
   * Only the cluster's own API server with a real node does: endpoints may not hold loopback addresses, and
   * a replica must not put its own address where pods look for the API server.
   */
  readonly reconcilesEndpoints: boolean;
}

/** The cluster's own API server: the address {@link apiServerAddress} names, on the layout's port. */
function mainApiServerListener(l: ApiServerLayout): ApiServerListener {
  return { address: apiServerAddress(l), port: l.apiServerPort, reconcilesEndpoints: l.realNode };
}

export function apiServerArgs(
  l: ApiServerLayout,
  listener: ApiServerListener = mainApiServerListener(l),
): string[] {
  const { pki } = l;
  return [
    `--etcd-servers=http://127.0.0.1:${l.etcdClientPort}`,
    `--bind-address=${listener.address}`,
    `--advertise-address=${listener.address}`,
    `--secure-port=${listener.port}`,
    `--cert-dir=${pki.dir}`,
    `--tls-cert-file=${pki.serverCert}`,
    `--tls-private-key-file=${pki.serverKey}`,
    `--client-ca-file=${pki.caCert}`,
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${pki.serviceAccountPub}`,
    `--service-account-signing-key-file=${pki.serviceAccountKey}`,
    `--service-cluster-ip-range=${l.serviceCidr}`,
    '--authorization-mode=Node,RBAC',
    '--allow-privileged=true',
    // The aggregation layer: requests proxied to aggregated API servers carry the user in these headers and
    // the API server's front-proxy client certificate.
    `--requestheader-client-ca-file=${pki.frontProxy.caCert}`,
    `--requestheader-allowed-names=${FRONT_PROXY_CLIENT}`,
    '--requestheader-username-headers=X-Remote-User',
    '--requestheader-group-headers=X-Remote-Group',
    '--requestheader-extra-headers-prefix=X-Remote-Extra-',
    `--proxy-client-cert-file=${pki.frontProxy.client.cert}`,
    `--proxy-client-key-file=${pki.frontProxy.client.key}`,
    ...(l.realNode
      ? [
          // logs, exec and port-forward: the kubelet is reached by its InternalIP (no DNS lookup of node
          // names), its serving certificate is checked, and the API server proves who it is.
          `--kubelet-client-certificate=${pki.clients.kubeletClient.cert}`,
          `--kubelet-client-key=${pki.clients.kubeletClient.key}`,
          `--kubelet-certificate-authority=${pki.caCert}`,
          '--kubelet-preferred-address-types=InternalIP',
        ]
      : []),
    ...(listener.reconcilesEndpoints ? [] : ['--endpoint-reconciler-type=none']),
    '--profiling=false',
    '--v=1',
  ];
}

export function controllerManagerArgs(l: ControlPlaneLayout): string[] {
  const { pki } = l;
  return [
    `--kubeconfig=${l.kubeconfigs.controllerManager}`,
    `--authentication-kubeconfig=${l.kubeconfigs.controllerManager}`,
    `--authorization-kubeconfig=${l.kubeconfigs.controllerManager}`,
    '--leader-elect=false',
    '--bind-address=127.0.0.1',
    `--secure-port=${l.controllerManagerPort}`,
    `--service-account-private-key-file=${pki.serviceAccountKey}`,
    `--root-ca-file=${pki.caCert}`,
    `--cluster-signing-cert-file=${pki.caCert}`,
    `--cluster-signing-key-file=${pki.caKey}`,
    // Each controller acts as its own service account, as in kubeadm clusters, so RBAC is exercised for real.
    '--use-service-account-credentials=true',
    `--service-cluster-ip-range=${l.serviceCidr}`,
    ...apiRateFlags(l),
    '--profiling=false',
    '--v=1',
  ];
}

export function schedulerArgs(l: ControlPlaneLayout): string[] {
  return [
    `--kubeconfig=${l.kubeconfigs.scheduler}`,
    `--authentication-kubeconfig=${l.kubeconfigs.scheduler}`,
    `--authorization-kubeconfig=${l.kubeconfigs.scheduler}`,
    '--leader-elect=false',
    '--bind-address=127.0.0.1',
    `--secure-port=${l.schedulerPort}`,
    ...apiRateFlags(l),
    '--profiling=false',
    '--v=1',
  ];
}

export function kwokArgs(l: ControlPlaneLayout, stages: readonly string[]): string[] {
  return [
    `--kubeconfig=${l.kubeconfigs.kwok}`,
    ...stages.map((file) => `--config=${file}`),
    // Only nodes carrying our label, and the pods bound to them; the real node's pods are the kubelet's.
    '--manage-nodes-with-label-selector=opkit.dev/fake-node=true',
    `--node-ip=${NODE_NETWORK.kwokNodeIP}`,
    `--cidr=${NODE_NETWORK.kwokPodCidr}`,
    '--node-lease-duration-seconds=40',
  ];
}
