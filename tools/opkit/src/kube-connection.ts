// The CLI's connection to a cluster: the runtime's direct client, for the kubeconfig kubectl would use, and
// the few helpers every command that talks to a cluster shares.
import {
  type DirectClient,
  directClient,
  isNotFound,
  KubeconfigError,
  type LoadedKubeconfig,
  loadKubeConfig,
  NoKindMatchError,
  type ObjectRef,
} from '@opkit/controller-runtime/client';
import { CliError } from './cli-error.js';

/** How long one API request of a command may take. */
const REQUEST_TIMEOUT_MS = 30_000;

/** A client for the cluster of a kubeconfig's current context. */
export interface KubeConnection {
  readonly client: DirectClient;
  /** The API server's origin, for messages. */
  readonly server: string;
  /** The current context's namespace, when it names one. */
  readonly namespace: string | undefined;
  /** Drops the kept-alive connections. */
  close(): Promise<void>;
}

/**
 * Connects as kubectl does: the kubeconfig file given, else `$KUBECONFIG`, `~/.kube/config` or the pod's
 * service account. Kinds are found through discovery. Callers close it when done (in a `finally`).
 *
 * @throws CliError `OPKIT_KUBECONFIG_INVALID` naming the file and entry that cannot be used
 */
export function connectKube(kubeconfig: string | undefined): KubeConnection {
  let config: LoadedKubeconfig;
  try {
    config = loadKubeConfig(kubeconfig);
  } catch (err) {
    if (!(err instanceof KubeconfigError)) throw err;
    throw new CliError('OPKIT_KUBECONFIG_INVALID', err.message, { cause: err });
  }
  // A command waits on each request at most as long as the OLM installer always has; its own --timeout bounds
  // the whole run.
  const client = directClient(config, { requestTimeoutMs: REQUEST_TIMEOUT_MS });
  return {
    client,
    server: new URL(config.getCurrentCluster().server).origin,
    namespace: config.namespace,
    close: () => client.close(),
  };
}

/** An object's kind, name and namespace: what the client's paths are built from. */
export interface ObjectHeader {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
}

/** The reference the client's delete and patch take for an object. */
export function refOf(object: ObjectHeader): ObjectRef {
  const { name, namespace } = object.metadata;
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    name,
    ...(namespace === undefined ? {} : { namespace }),
  };
}

/** Not there: the object, or its kind (OLM's, before its CRDs are installed or after they are deleted). */
export function isAbsent(error: unknown): boolean {
  return isNotFound(error) || error instanceof NoKindMatchError;
}
