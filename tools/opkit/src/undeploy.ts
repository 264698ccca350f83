// `opkit undeploy`'s kubectl calls: what of the rendered manifests the cluster holds, how many objects a CRD
// still has, and its custom resources deleted while the operator still runs, so their finalizers are removed
// and no CRD is left terminating.

import { runKubectl as kubectl } from '@opkit/olm/action/kubectl';
import { readYamlStream } from '@opkit/olm/bundle';
import { CliError } from './cli-error.js';
import type { DeployObject } from './deployed-objects.js';

/** Objects as one `List` document, which `kubectl … -f -` takes as its items. */
export function objectList(objects: readonly DeployObject[]): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects });
}

/** Those of `objects` that exist on the cluster, as it holds them. */
export function liveObjects(kubeconfig: readonly string[], objects: readonly DeployObject[]): DeployObject[] {
  if (objects.length === 0) return [];
  const result = kubectl(
    ['get', ...kubeconfig, '--ignore-not-found', '-o', 'json', '-f', '-'],
    objectList(objects),
  );
  if (result.status !== 0) {
    throw new CliError('OPKIT_KUBECTL_FAILED', `kubectl get failed: ${result.stderr.trim()}`);
  }
  if (result.stdout.trim() === '') return [];
  const answer = JSON.parse(result.stdout) as DeployObject & { items?: DeployObject[] };
  return answer.kind === 'List' ? (answer.items ?? []) : [answer];
}

/** How many objects of a custom resource type (`<plural>.<group>`) exist in all namespaces. */
export function countCustomResources(kubeconfig: readonly string[], resource: string): number {
  const result = kubectl(['get', ...kubeconfig, resource, '--all-namespaces', '-o', 'name']);
  if (/doesn't have a resource type/.test(result.stderr)) return 0;
  if (result.status !== 0) {
    throw new CliError('OPKIT_KUBECTL_FAILED', `kubectl get ${resource} failed: ${result.stderr.trim()}`);
  }
  return result.stdout.split('\n').filter((line) => line.trim() !== '').length;
}

/** The objects kustomize rendered from `source`, read within the bundle reader's limits. */
export function renderedObjects(manifests: string, source: string): DeployObject[] {
  let objects: unknown[];
  try {
    objects = readYamlStream(manifests);
  } catch (error) {
    throw new CliError('OPKIT_KUSTOMIZE_FAILED', `${source}: kustomize output: ${(error as Error).message}`);
  }
  return objects.flatMap((doc) => {
    const o = doc as Partial<DeployObject> | null;
    return typeof o?.apiVersion === 'string' && typeof o.kind === 'string' && o.metadata?.name
      ? [
          {
            apiVersion: o.apiVersion,
            kind: o.kind,
            metadata: {
              name: o.metadata.name,
              ...(o.metadata.namespace === undefined ? {} : { namespace: o.metadata.namespace }),
            },
          },
        ]
      : [];
  });
}

/**
 * Deletes every object of one custom resource type in all namespaces and waits until they are gone. A type
 * the cluster does not serve (not deployed, or already removed) has nothing to delete.
 */
export function deleteCustomResources(
  kubeconfig: readonly string[],
  resource: string,
  timeout: string,
): void {
  const result = kubectl([
    'delete',
    ...kubeconfig,
    resource,
    '--all',
    '--all-namespaces',
    '--ignore-not-found',
    '--wait',
    `--timeout=${timeout}`,
  ]);
  process.stdout.write(result.stdout);
  if (result.status === 0 || /doesn't have a resource type/.test(result.stderr)) return;
  if (/timed out waiting/.test(result.stderr)) {
    throw new CliError(
      'OPKIT_UNDEPLOY_STUCK',
      `${resource}: objects are still there after ${timeout}; the operator did not finalize them (is it running? kubectl get ${resource} -A)`,
    );
  }
  throw new CliError('OPKIT_KUBECTL_FAILED', `kubectl delete ${resource} failed: ${result.stderr.trim()}`);
}
