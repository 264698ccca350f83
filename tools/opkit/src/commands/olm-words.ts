// The words `opkit olm` has always printed a cluster's failures in; loaded only when a command fails, as a
// command module imports no library at start-up.
import { ApiError, ConnectionError, KubeconfigError } from '@opkit/controller-runtime/client';
import { CliError } from '../cli-error.js';

/**
 * A cluster's failure in the words these commands have always printed: an API server's refusal as
 * `GET /path: HTTP 403: message` (the runtime says `403 Forbidden`), a server not reached as the socket's own
 * error (`connect ECONNREFUSED …`, which the runtime prefixes with the request); other errors pass through.
 */
export function inOlmWords(error: unknown): unknown {
  if (error instanceof ApiError) {
    return new CliError(
      'OLM_KUBE_API',
      `${error.method} ${error.path}: HTTP ${error.status}: ${error.statusMessage.trim()}`,
      { cause: error },
    );
  }
  // Not a kubeconfig's failure (an exec plugin's, say): its message names the file and entry.
  const unreached = error instanceof ConnectionError && !(error instanceof KubeconfigError);
  const cause = unreached ? error.cause : undefined;
  if (cause instanceof Error && typeof (cause as NodeJS.ErrnoException).code === 'string') return cause;
  return error;
}
