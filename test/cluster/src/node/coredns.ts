import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NODE_NETWORK } from './addresses.js';

/** The ClusterRole CoreDNS's kubernetes plugin needs, bound to the identity of its client certificate. */
export const COREDNS_USER = 'opkit:coredns';
export function corednsRbac(): object[] {
  return [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: COREDNS_USER },
      rules: [
        {
          apiGroups: [''],
          resources: ['endpoints', 'services', 'pods', 'namespaces'],
          verbs: ['list', 'watch'],
        },
        { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list', 'watch'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: COREDNS_USER },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: COREDNS_USER },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: COREDNS_USER }],
    },
  ];
}

/**
 * CoreDNS on the node IP, port 53, answering cluster names only: queries for anything else are refused, as
 * no zone but the cluster's is served, so nothing is forwarded off the machine.
 */
export function corednsArgs(l: {
  dir: string;
  kubeconfig: string;
  healthPort: number;
  readyPort: number;
}): string[] {
  const { nodeIP, clusterDomain } = NODE_NETWORK;
  const corefile = `${clusterDomain}:53 in-addr.arpa:53 ip6.arpa:53 {
    bind ${nodeIP}
    errors
    health 127.0.0.1:${l.healthPort}
    ready 127.0.0.1:${l.readyPort}
    kubernetes ${clusterDomain} in-addr.arpa ip6.arpa {
        kubeconfig ${l.kubeconfig}
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
        ttl 5
    }
    cache 5
}
`;
  const file = join(l.dir, 'Corefile');
  writeFileSync(file, corefile);
  return ['-conf', file];
}
