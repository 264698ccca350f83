import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { NODE_NETWORK, REAL_NODE_NAME } from './addresses.js';
import { CGROUP_ROOT } from './host-claim.js';

export interface KubeletLayout {
  readonly dir: string;
  readonly kubeconfig: string;
  readonly caCert: string;
  readonly servingCert: string;
  readonly servingKey: string;
  readonly containerdSocket: string;
  readonly port: number;
  readonly healthzPort: number;
}

/**
 * The kubelet's configuration file and command line. Settings other than paths and ports are there because
 * this kind of machine needs them (cgroup v1, no CAP_SYS_RESOURCE, swap) or because a test node must not
 * evict or garbage-collect under a busy disk.
 */
export function kubeletArgs(l: KubeletLayout): string[] {
  const { nodeIP, clusterDomain } = NODE_NETWORK;
  mkdirSync(l.dir, { recursive: true });
  const resolvConf = join(l.dir, 'resolv.conf');
  // Pods with dnsPolicy Default get the node's resolver: cluster DNS too, so no query leaves the machine.
  writeFileSync(resolvConf, `nameserver ${nodeIP}\n`);
  const config = {
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    address: nodeIP,
    port: l.port,
    readOnlyPort: 0,
    healthzBindAddress: '127.0.0.1',
    healthzPort: l.healthzPort,
    tlsCertFile: l.servingCert,
    tlsPrivateKeyFile: l.servingKey,
    // Only the API server (its kubelet client certificate) may use the kubelet's API.
    authentication: {
      anonymous: { enabled: false },
      webhook: { enabled: true },
      x509: { clientCAFile: l.caCert },
    },
    authorization: { mode: 'Webhook' },
    containerRuntimeEndpoint: `unix://${l.containerdSocket}`,
    // This kernel mounts cgroup v1 hierarchies that no systemd manages.
    failCgroupV1: false,
    cgroupDriver: 'cgroupfs',
    cgroupRoot: CGROUP_ROOT,
    // The VM's root may not lower OOM scores (no CAP_SYS_RESOURCE).
    oomScoreAdj: 0,
    failSwapOn: false,
    clusterDNS: [nodeIP],
    clusterDomain,
    resolvConf,
    podLogsDir: join(l.dir, 'pod-logs'),
    volumePluginDir: join(l.dir, 'volume-plugins'),
    serializeImagePulls: false,
    // A shared test machine's disk may be nearly full; evicting test pods or images would only confuse.
    evictionHard: {
      'memory.available': '50Mi',
      'nodefs.available': '1%',
      'imagefs.available': '1%',
      'nodefs.inodesFree': '1%',
    },
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    // Faster status updates than the production default, so tests see pod changes promptly.
    nodeStatusUpdateFrequency: '4s',
    shutdownGracePeriod: '0s',
  };
  const configFile = join(l.dir, 'kubelet.yaml');
  writeFileSync(configFile, stringify(config));
  return [
    `--config=${configFile}`,
    `--kubeconfig=${l.kubeconfig}`,
    `--root-dir=${join(l.dir, 'kubelet')}`,
    `--cert-dir=${join(l.dir, 'kubelet-pki')}`,
    `--hostname-override=${REAL_NODE_NAME}`,
    `--node-ip=${nodeIP}`,
    '--node-labels=opkit.dev/real-node=true',
    '--v=1',
  ];
}
