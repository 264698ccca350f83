import type { KubeObjectMeta } from './kube-types.js';

/** The few fields of OLM's objects these tests read or write (operators.coreos.com). */
export interface CatalogSource {
  readonly metadata: KubeObjectMeta;
  readonly status?: { readonly connectionState?: { readonly lastObservedState?: string } };
}

export interface Subscription {
  readonly metadata: KubeObjectMeta;
  readonly spec: {
    readonly channel: string;
    readonly name: string;
    readonly source: string;
    readonly sourceNamespace: string;
    readonly installPlanApproval: 'Manual' | 'Automatic';
    readonly startingCSV?: string;
  };
  readonly status?: {
    readonly state?: string;
    readonly currentCSV?: string;
    readonly installedCSV?: string;
    readonly installPlanRef?: { readonly name: string };
    /** Resolution failures and catalog health, e.g. `ResolutionFailed` with OLM's message. */
    readonly conditions?: readonly {
      readonly type: string;
      readonly status: string;
      readonly message?: string;
    }[];
  };
}

export interface InstallPlan {
  readonly metadata: KubeObjectMeta;
  readonly spec: { readonly approved: boolean; readonly clusterServiceVersionNames: readonly string[] };
  readonly status?: {
    readonly phase?: string;
    /** While OLM retries a failing step: `retrying execution due to error: …`. */
    readonly message?: string;
    readonly conditions?: readonly {
      readonly type: string;
      readonly status: string;
      readonly message?: string;
    }[];
  };
}

export interface ClusterServiceVersion {
  readonly metadata: KubeObjectMeta;
  readonly spec: {
    readonly version: string;
    readonly replaces?: string;
    readonly install: {
      readonly spec: {
        readonly deployments: readonly {
          readonly name: string;
          readonly spec: { readonly template: { readonly spec: { readonly serviceAccountName?: string } } };
        }[];
      };
    };
  };
  readonly status?: { readonly phase?: string; readonly reason?: string; readonly message?: string };
}

export const OLM_V1ALPHA1 = '/apis/operators.coreos.com/v1alpha1';
