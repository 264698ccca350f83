// kubectl as every command that shells out to it runs it: the actions' runner, and a failure as one line with
// kubectl's own message.
import { runKubectl } from '@opkit/olm/action/kubectl';
import { CliError } from './cli-error.js';

/** Runs kubectl and returns what it printed; a failure is one line with kubectl's own message. */
export function kubectl(args: readonly string[], input?: string): string {
  const result = runKubectl(args, input);
  if (result.status !== 0) {
    throw new CliError('OPKIT_KUBECTL_FAILED', `kubectl ${args[0]} failed: ${result.stderr.trim()}`);
  }
  return result.stdout;
}
