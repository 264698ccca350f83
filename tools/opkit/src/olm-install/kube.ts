import { Agent, type RequestOptions, request } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { olmKindPlural } from './crds.js';

/** An API server answer other than success, with its HTTP status and `Status.message`. */
export class KubeRequestError extends Error {
  readonly code = 'OLM_KUBE_API';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'KubeRequestError';
  }
}

/**
 * The kinds of an install, of OLM-managed objects and what OLM creates for them, and those users commonly keep
 * in a namespace, by REST resource.
 */
const CORE_RESOURCES: Record<string, { readonly plural: string; readonly namespaced: boolean }> = {
  Namespace: { plural: 'namespaces', namespaced: false },
  ServiceAccount: { plural: 'serviceaccounts', namespaced: true },
  ClusterRole: { plural: 'clusterroles', namespaced: false },
  ClusterRoleBinding: { plural: 'clusterrolebindings', namespaced: false },
  Deployment: { plural: 'deployments', namespaced: true },
  CustomResourceDefinition: { plural: 'customresourcedefinitions', namespaced: false },
  APIService: { plural: 'apiservices', namespaced: false },
  StatefulSet: { plural: 'statefulsets', namespaced: true },
  DaemonSet: { plural: 'daemonsets', namespaced: true },
  ReplicaSet: { plural: 'replicasets', namespaced: true },
  Job: { plural: 'jobs', namespaced: true },
  CronJob: { plural: 'cronjobs', namespaced: true },
  Service: { plural: 'services', namespaced: true },
  ConfigMap: { plural: 'configmaps', namespaced: true },
  Secret: { plural: 'secrets', namespaced: true },
  Pod: { plural: 'pods', namespaced: true },
};
const CLUSTER_SCOPED_OLM_KINDS = new Set(['OLMConfig', 'Operator']);

/** The REST path of a kind's collection (in a namespace, or across all with none). */
export function collectionPath(apiVersion: string, kind: string, namespace?: string): string {
  const prefix = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const core = CORE_RESOURCES[kind];
  const plural = core?.plural ?? olmKindPlural(kind);
  if (plural === undefined) throw new Error(`no REST resource known for kind ${kind}`);
  const namespaced = core ? core.namespaced : !CLUSTER_SCOPED_OLM_KINDS.has(kind);
  return namespaced && namespace !== undefined
    ? `${prefix}/namespaces/${namespace}/${plural}`
    : `${prefix}/${plural}`;
}

/** The REST path of one object. */
export function objectPath(object: {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
}): string {
  return `${collectionPath(object.apiVersion, object.kind, object.metadata.namespace)}/${object.metadata.name}`;
}

/**
 * The few API calls an install needs, over HTTPS with the kubeconfig's credentials. Paths are built from
 * the kinds above, so nothing depends on discovery (which lags behind newly created CRDs).
 */
export class KubeObjects {
  readonly #server: URL;
  readonly #kubeConfig: KubeConfig;
  #options: RequestOptions | undefined;

  constructor(kubeConfig: KubeConfig) {
    const server = kubeConfig.getCurrentCluster()?.server;
    if (!server) throw new Error('the kubeconfig names no current cluster');
    this.#server = new URL(server);
    this.#kubeConfig = kubeConfig;
  }

  /** The server's URL, for messages. */
  get server(): string {
    return this.#server.origin;
  }

  async #send(method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
    if (!this.#options) {
      const options: RequestOptions = {};
      await this.#kubeConfig.applyToHTTPSOptions(options);
      options.agent = new Agent({ keepAlive: true, ca: options.ca, cert: options.cert, key: options.key });
      this.#options = options;
    }
    const base = this.#options;
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        {
          ...base,
          hostname: this.#server.hostname,
          port: this.#server.port,
          method,
          path,
          timeout: 30_000,
          headers: {
            ...base.headers,
            accept: 'application/json',
            // An explicit length: Node sends a DELETE's body neither chunked nor sized otherwise, which
            // desyncs the kept-alive connection for the next request.
            ...(payload === undefined
              ? {}
              : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
          );
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer within 30s`)));
      req.on('error', reject);
      req.end(payload);
    });
  }

  async #call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const { status, text } = await this.#send(method, path, body);
    if (status >= 200 && status < 300) return (text ? JSON.parse(text) : {}) as T;
    let message = text.trim();
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? message;
    } catch {
      // not a Status object
    }
    throw new KubeRequestError(status, `${method} ${path}: HTTP ${status}: ${message}`);
  }

  /** The object at `path`, or undefined when it (or its kind) does not exist. */
  async get<T>(path: string): Promise<T | undefined> {
    try {
      return await this.#call<T>('GET', path);
    } catch (error) {
      if (error instanceof KubeRequestError && error.status === 404) return undefined;
      throw error;
    }
  }

  /** The items at a collection path; none when the kind is not served. */
  async list<T>(path: string): Promise<T[]> {
    return (await this.get<{ items: T[] }>(path))?.items ?? [];
  }

  async create(path: string, body: unknown): Promise<void> {
    await this.#call('POST', path, body);
  }

  /** Deletes in the background (dependents too); false when it was already gone. */
  async delete(path: string): Promise<boolean> {
    try {
      await this.#call('DELETE', path, {
        kind: 'DeleteOptions',
        apiVersion: 'v1',
        propagationPolicy: 'Background',
      });
      return true;
    } catch (error) {
      if (error instanceof KubeRequestError && error.status === 404) return false;
      throw error;
    }
  }

  close(): void {
    (this.#options?.agent as Agent | undefined)?.destroy();
  }
}
