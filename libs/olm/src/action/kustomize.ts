// `kubectl kustomize` as the bundle actions run it: output as text, a kubectl that cannot be started one line
// saying so.
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { ActionError } from './errors.js';

/** Renders a kustomization directory with kubectl; the caller judges the exit status. */
export function runKustomize(dir: string): SpawnSyncReturns<string> {
  const result = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.error) {
    throw new ActionError(
      'OPKIT_KUBECTL_MISSING',
      `kubectl could not run (${result.error.message}): install kubectl`,
    );
  }
  return result;
}
