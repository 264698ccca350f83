// kubectl as every command that shells out to it runs it: input on stdin, output as text, and a kubectl that
// cannot be started one line saying so.
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { CliError } from './cli-error.js';

/** Runs kubectl; the caller judges its exit status. */
export function runKubectl(args: readonly string[], input?: string): SpawnSyncReturns<string> {
  const result = spawnSync('kubectl', args, { input, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.error) {
    throw new CliError(
      'OPKIT_KUBECTL_MISSING',
      `kubectl could not run (${result.error.message}): install kubectl`,
    );
  }
  return result;
}

/** Runs kubectl and returns what it printed; a failure is one line with kubectl's own message. */
export function kubectl(args: readonly string[], input?: string): string {
  const result = runKubectl(args, input);
  if (result.status !== 0) {
    throw new CliError('OPKIT_KUBECTL_FAILED', `kubectl ${args[0]} failed: ${result.stderr.trim()}`);
  }
  return result.stdout;
}
