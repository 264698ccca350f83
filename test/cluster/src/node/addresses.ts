/**
 * The real node's network. Both ranges lie in 198.18.0.0/15, which is reserved for benchmarking networks
 * (RFC 2544) and so never clashes with a real network. The bridge holds the whole pod /16 and the service /16
 * is routed onto it, so no packet for either range can leave the machine.
 */
export const NODE_NETWORK = {
  /** The Linux bridge every pod's veth is attached to. */
  bridge: 'opkit0',
  podCidr: '198.18.0.0/16',
  /** Where the CNI plugin allocates the real node's pod IPs: the lower half of the pod range. */
  realPodRange: { start: '198.18.0.10', end: '198.18.127.254' },
  /** The upper half: addresses kwok reports for the pods it plays the kubelet for (never routed). */
  kwokPodCidr: '198.18.128.0/17',
  /** The InternalIP kwok reports for its nodes. */
  kwokNodeIP: '198.18.128.1',
  /** The bridge's own address: the node's InternalIP, the API server's and CoreDNS's listen address. */
  nodeIP: '198.18.0.1',
  serviceCidr: '198.19.0.0/16',
  /** The first address of the service range: the in-cluster `kubernetes` Service. */
  kubernetesServiceIP: '198.19.0.1',
  clusterDomain: 'cluster.local',
} as const;

/** The real node's name (kwok nodes are `opkit-node-<n>`). */
export const REAL_NODE_NAME = 'opkit-worker';
