import type { ObjectMeta } from '@opkit/controller-runtime';

/** The metadata of the objects these tests read back: the API server has given each its name. */
export type KubeObjectMeta = Readonly<ObjectMeta> & { readonly name: string };

export interface Condition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
  readonly observedGeneration?: number;
}

export interface CustomResourceDefinition {
  readonly metadata: KubeObjectMeta;
  readonly spec: {
    readonly versions: readonly {
      readonly name: string;
      readonly schema: {
        readonly openAPIV3Schema: {
          readonly properties: { readonly spec: { readonly properties: Readonly<Record<string, unknown>> } };
        };
      };
    }[];
  };
  readonly status: { readonly conditions: readonly Condition[] };
}

export interface Deployment {
  readonly metadata: KubeObjectMeta;
  readonly spec: {
    readonly replicas?: number;
    readonly template: {
      readonly metadata?: KubeObjectMeta;
      readonly spec: {
        readonly serviceAccountName?: string;
        readonly containers: readonly {
          readonly name: string;
          readonly args?: readonly string[];
          readonly env?: readonly {
            readonly name: string;
            readonly value?: string;
            readonly valueFrom?: { readonly fieldRef?: { readonly fieldPath: string } };
          }[];
        }[];
      };
    };
  };
  readonly status?: { readonly availableReplicas?: number; readonly readyReplicas?: number };
}
