import { type KubeRest, listWatch } from '@opkit/test-cluster';
import { ALL_DEPLOYMENTS, type CreatedObject, DEPLOYMENTS, MEMCACHEDS, memberKey } from './fleet.js';

// The limit: a client that knows everything up front and issues only the writes a Memcached strictly needs —
// one Deployment create per CR, then one status write once that Deployment is ready; on a resize, one
// Deployment patch. It reacts to nothing but the ready Deployments it watches, so its converge time is what
// the API server, kube-controller-manager, the scheduler and the kubelet need, with no operator in between.

const LABEL = 'app.kubernetes.io/instance';

/** The same pod template as the baseline's, so the pods cost the same to start. */
export function limitDeployment(cr: CreatedObject, size: number, image: string): object {
  const labels = { 'app.kubernetes.io/name': 'memcached-operator', [LABEL]: cr.metadata.name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: cr.metadata.name,
      namespace: cr.metadata.namespace,
      ownerReferences: [
        {
          apiVersion: 'cache.example.com/v1alpha1',
          kind: 'Memcached',
          name: cr.metadata.name,
          uid: cr.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      replicas: size,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
          containers: [
            {
              name: 'memcached',
              image,
              imagePullPolicy: 'IfNotPresent',
              securityContext: {
                runAsNonRoot: true,
                runAsUser: 1001,
                allowPrivilegeEscalation: false,
                capabilities: { drop: ['ALL'] },
              },
              ports: [{ containerPort: 11211, name: 'memcached' }],
              command: ['memcached', '--memory-limit=64', '-o', 'modern', '-v'],
            },
          ],
        },
      },
    },
  };
}

interface DeploymentObject {
  metadata: { name: string; namespace: string };
  spec?: { replicas?: number };
  status?: { readyReplicas?: number };
}

/**
 * The minimal controller of the limit: writes `Available=True` on each Memcached once its Deployment has
 * `size` ready replicas. Counts its writes so the report can show them.
 */
export class MinimalStatusWriter {
  readonly #rest: KubeRest;
  readonly #written = new Set<string>();
  readonly #pending: DeploymentObject['metadata'][] = [];
  readonly #stop = new AbortController();
  #inFlight = 0;
  #failure: Error | undefined;
  writes = 0;

  constructor(rest: KubeRest, namespaces: readonly string[], expectedSize: () => number) {
    this.#rest = rest;
    const ours = new Set(namespaces);
    const seen = (d: DeploymentObject) => {
      const size = expectedSize();
      const key = memberKey(d.metadata.namespace, d.metadata.name);
      if (
        ours.has(d.metadata.namespace) &&
        d.spec?.replicas === size &&
        d.status?.readyReplicas === size &&
        !this.#written.has(key)
      ) {
        this.#written.add(key);
        this.#pending.push(d.metadata);
        this.#pump();
      }
    };
    void listWatch<DeploymentObject>(
      rest,
      ALL_DEPLOYMENTS,
      {},
      { sync: (items) => items.forEach(seen), added: seen, modified: seen, deleted: () => {} },
      this.#stop.signal,
    );
  }

  #pump(): void {
    while (this.#inFlight < 16 && this.#pending.length > 0) {
      const { namespace, name } = this.#pending.shift()!;
      this.#inFlight++;
      this.writes++;
      this.#rest
        .request('PATCH', `${MEMCACHEDS(namespace)}/${name}/status`, {
          contentType: 'application/merge-patch+json',
          body: {
            status: {
              conditions: [
                {
                  type: 'Available',
                  status: 'True',
                  reason: 'DeploymentReady',
                  message: 'Deployment ready',
                  lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
                },
              ],
            },
          },
        })
        .catch((error: Error) => {
          this.#failure ??= error;
        })
        .finally(() => {
          this.#inFlight--;
          this.#pump();
        });
    }
  }

  /** Throws the first failed status write, if any. */
  check(): void {
    if (this.#failure) throw this.#failure;
  }

  close(): void {
    this.#stop.abort();
  }
}

/** One Deployment create per created Memcached. */
export function createDeploymentFor(rest: KubeRest, size: number, image: string) {
  return async (cr: CreatedObject): Promise<void> => {
    await rest.request('POST', DEPLOYMENTS(cr.metadata.namespace), {
      body: limitDeployment(cr, size, image),
    });
  };
}
