// kubectl as the actions and the CLI run it: input on stdin, output as text, and a kubectl that cannot be
// started one line saying so. `kubectl kustomize` is bounded in time, as it may fetch remote bases.
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { ActionError } from './errors.js';

/** How long `kubectl kustomize` may take: generous, as remote bases are fetched over the network. */
const KUSTOMIZE_TIMEOUT_MS = 5 * 60_000;

/** Runs kubectl; the caller judges its exit status. */
export function runKubectl(
  args: readonly string[],
  input?: string,
  options: { readonly timeoutMs?: number } = {},
): SpawnSyncReturns<string> {
  const result = spawnSync('kubectl', args, {
    input,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
  });
  if (result.error && (result.error as NodeJS.ErrnoException).code !== 'ETIMEDOUT') {
    throw new ActionError(
      'OPKIT_KUBECTL_MISSING',
      `kubectl could not run (${result.error.message}): install kubectl`,
    );
  }
  return result;
}

/** Renders a kustomization directory with kubectl; the caller judges the exit status. */
export function runKustomize(dir: string): SpawnSyncReturns<string> {
  const result = runKubectl(['kustomize', dir], undefined, { timeoutMs: KUSTOMIZE_TIMEOUT_MS });
  if ((result.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT') {
    throw new ActionError(
      'OPKIT_KUSTOMIZE_FAILED',
      `${dir}: kustomize did not finish within ${KUSTOMIZE_TIMEOUT_MS / 60_000} minutes (remote bases unreachable?)`,
    );
  }
  return result;
}
