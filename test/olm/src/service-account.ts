import { writeFileSync } from 'node:fs';
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeRest } from '@opkit/test-cluster';
import { stringify } from 'yaml';

/**
 * Writes a kubeconfig that authenticates as a ServiceAccount with a token from the TokenRequest API — what a
 * pod of that account would mount — so a process run outside the cluster has exactly the account's rights.
 */
export async function writeServiceAccountKubeconfig(options: {
  readonly rest: KubeRest;
  readonly admin: KubeConfig;
  readonly namespace: string;
  readonly serviceAccount: string;
  readonly path: string;
}): Promise<void> {
  const { rest, admin, namespace, serviceAccount, path } = options;
  const request = await rest.request<{ status: { token: string } }>(
    'POST',
    `/api/v1/namespaces/${namespace}/serviceaccounts/${serviceAccount}/token`,
    {
      body: {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: { expirationSeconds: 3600 },
      },
    },
  );
  const cluster = admin.getCurrentCluster();
  if (!cluster) throw new Error('the admin kubeconfig has no current cluster');
  writeFileSync(
    path,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'cluster',
          cluster: {
            server: cluster.server,
            ...(cluster.caData
              ? { 'certificate-authority-data': cluster.caData }
              : { 'certificate-authority': cluster.caFile }),
          },
        },
      ],
      users: [{ name: serviceAccount, user: { token: request.status.token } }],
      contexts: [{ name: serviceAccount, context: { cluster: 'cluster', user: serviceAccount, namespace } }],
      'current-context': serviceAccount,
    }),
    { mode: 0o600 },
  );
}

/** Asks the API server whether the account behind `rest` may do something (SelfSubjectAccessReview). */
export async function canI(
  rest: KubeRest,
  attributes: {
    readonly verb: string;
    readonly group?: string;
    readonly resource: string;
    readonly subresource?: string;
    readonly namespace?: string;
  },
): Promise<boolean> {
  const review = await rest.request<{ status: { allowed: boolean } }>(
    'POST',
    '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
    {
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        spec: { resourceAttributes: { ...attributes, group: attributes.group ?? '' } },
      },
    },
  );
  return review.status.allowed;
}
