// The CLI's connection to a cluster: the runtime's direct client, for the kubeconfig kubectl would use.
import {
  DirectClient,
  Kubeconfig,
  KubeconfigError,
  ResourceMapper,
  Transport,
} from '@opkit/controller-runtime/client';
import { CliError } from './cli-error.js';

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
 * service account. Kinds are found through discovery.
 *
 * @throws CliError `OPKIT_KUBECONFIG_INVALID` naming the file and entry that cannot be used
 */
export function connectKube(kubeconfig: string | undefined): KubeConnection {
  let config: Kubeconfig;
  try {
    config = Kubeconfig.load(kubeconfig);
  } catch (err) {
    if (!(err instanceof KubeconfigError)) throw err;
    throw new CliError('OPKIT_KUBECONFIG_INVALID', err.message, { cause: err });
  }
  const transport = new Transport(config);
  return {
    client: new DirectClient(transport, new ResourceMapper(transport)),
    server: new URL(config.getCurrentCluster().server).origin,
    namespace: config.namespace,
    close: () => transport.close(),
  };
}
