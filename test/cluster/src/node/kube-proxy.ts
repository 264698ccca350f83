import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { NODE_NETWORK, REAL_NODE_NAME } from './addresses.js';

/** kube-proxy in iptables mode, leaving the host's sysctls alone. */
export function kubeProxyArgs(l: {
  dir: string;
  kubeconfig: string;
  healthzPort: number;
  metricsPort: number;
}): string[] {
  const { nodeIP, podCidr } = NODE_NETWORK;
  const config = {
    apiVersion: 'kubeproxy.config.k8s.io/v1alpha1',
    kind: 'KubeProxyConfiguration',
    clientConnection: { kubeconfig: l.kubeconfig },
    mode: 'iptables',
    hostnameOverride: REAL_NODE_NAME,
    clusterCIDR: podCidr,
    bindAddress: nodeIP,
    healthzBindAddress: `127.0.0.1:${l.healthzPort}`,
    metricsBindAddress: `127.0.0.1:${l.metricsPort}`,
    nodePortAddresses: [`${nodeIP}/32`],
    // The VM's root may not lower OOM scores.
    oomScoreAdj: 0,
    // Zero means: do not touch the conntrack sysctls.
    conntrack: { maxPerCore: 0, min: 0, tcpEstablishedTimeout: '0s', tcpCloseWaitTimeout: '0s' },
    iptables: {
      // Every Service connection is SNATed to the node IP, so replies from a pod on the same bridge come back
      // through the NAT that translated the request (no reliance on bridge netfilter settings).
      masqueradeAll: true,
      // NodePorts on 127.0.0.1 would need route_localnet.
      localhostNodePorts: false,
    },
  };
  const file = join(l.dir, 'kube-proxy.yaml');
  writeFileSync(file, stringify(config));
  return [`--config=${file}`, '--v=1'];
}
