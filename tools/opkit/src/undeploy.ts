// `opkit undeploy`'s first step: the operator's custom resources go while the operator still runs, so their
// finalizers are removed and no CRD is left terminating.
import { spawnSync } from 'node:child_process';
import { readYamlStream } from '@opkit/olm/bundle';
import { CliError } from './cli-error.js';

/** `<plural>.<group>` of every CRD among the manifests kustomize rendered from `source`. */
export function customResourceTypes(manifests: string, source: string): string[] {
  let objects: unknown[];
  try {
    objects = readYamlStream(manifests);
  } catch (error) {
    throw new CliError('OPKIT_KUSTOMIZE_FAILED', `${source}: kustomize output: ${(error as Error).message}`);
  }
  return objects.flatMap((doc) => {
    const obj = doc as {
      kind?: string;
      spec?: { group?: string; names?: { plural?: string } };
    } | null;
    const plural = obj?.spec?.names?.plural;
    return obj?.kind === 'CustomResourceDefinition' && plural && obj.spec?.group
      ? [`${plural}.${obj.spec.group}`]
      : [];
  });
}

/**
 * Deletes every object of one custom resource type in all namespaces and waits until they are gone. A type
 * the cluster does not serve (not deployed, or already removed) has nothing to delete.
 */
export function deleteCustomResources(kubeconfig: string[], resource: string, timeout: string): void {
  const result = spawnSync(
    'kubectl',
    [
      'delete',
      ...kubeconfig,
      resource,
      '--all',
      '--all-namespaces',
      '--ignore-not-found',
      '--wait',
      `--timeout=${timeout}`,
    ],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  if (result.error)
    throw new CliError(
      'OPKIT_KUBECTL_MISSING',
      `kubectl could not run (${result.error.message}): install kubectl`,
    );
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
