// The built-in kinds the RedisCluster controller reads and owns, with the fields it uses.

import type { KubeObject } from '@opkit/controller-runtime';

export const STATEFUL_SET = { apiVersion: 'apps/v1', kind: 'StatefulSet' } as const;
export const SERVICE = { apiVersion: 'v1', kind: 'Service' } as const;
export const CONFIG_MAP = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
export const SECRET = { apiVersion: 'v1', kind: 'Secret' } as const;
export const PDB = { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget' } as const;
export const POD = { apiVersion: 'v1', kind: 'Pod' } as const;

export interface StatefulSet extends KubeObject {
  spec?: { replicas?: number };
  status?: {
    replicas?: number;
    readyReplicas?: number;
    observedGeneration?: number;
    /** The revision of the current pod template; pods carry theirs in the controller-revision-hash label. */
    updateRevision?: string;
  };
}

export interface Pod extends KubeObject {
  spec?: { nodeName?: string };
  status?: { podIP?: string; conditions?: { type: string; status: string }[] };
}

export interface Secret extends KubeObject {
  data?: Record<string, string>;
}
