import {
  ApiError,
  isAlreadyExists,
  isConflict,
  NoKindMatchError,
  type ObjectClient,
} from '@opkit/controller-runtime/client';
import { CliError } from './cli-error.js';
import { connectKube, isAbsent, type KubeConnection } from './kube-connection.js';

/** OLM's two settings for a registry pod's security context. */
export const SECURITY_CONTEXT_CONFIGS = ['legacy', 'restricted'] as const;
export type SecurityContextConfig = (typeof SECURITY_CONTEXT_CONFIGS)[number];

/** Options of `opkit catalog publish`. */
export interface PublishOptions {
  readonly name: string;
  readonly namespace: string;
  /** Labels of the CatalogSource (e.g. the one `opkit cleanup` finds its objects by). */
  readonly labels?: Readonly<Record<string, string>>;
  /** Annotations of the CatalogSource (e.g. the run of `opkit run bundle` that created it). */
  readonly annotations?: Readonly<Record<string, string>>;
  /** `host:port` of a running registry server (spec.address), or … */
  readonly address?: string;
  /** … a catalog image reference OLM runs as a registry pod (spec.image). */
  readonly image?: string;
  /**
   * With `image`: the catalog's directory in the image. OLM then copies the catalog out of the image and
   * serves it with its own opm (`spec.grpcPodConfig.extractContent`), so the image need not serve.
   */
  readonly extractContent?: string;
  /**
   * The registry pod's security context (`spec.grpcPodConfig.securityContextConfig`): `restricted` runs in a
   * namespace that enforces the restricted Pod Security Standard, `legacy` suits old catalog images. Unset,
   * OLM chooses by the namespace's enforced level.
   */
  readonly securityContextConfig?: SecurityContextConfig;
  readonly displayName?: string;
  readonly timeoutMs: number;
  readonly kubeconfig?: string;
  /** The API calls made; default the runtime's client for `kubeconfig`. */
  readonly api?: Pick<ObjectClient, 'get' | 'create' | 'apply'>;
  /**
   * Set, the CatalogSource is never taken over: created when absent (one that appears meanwhile is refused),
   * else applied only when this returns nothing for it as just read, with its resourceVersion as a
   * precondition. Returns why the existing one is not the caller's.
   */
  readonly notOurs?: (existing: CatalogSource) => string | undefined;
  /** Progress lines. */
  readonly log: (line: string) => void;
  readonly pollIntervalMs?: number;
}

export interface CatalogSource {
  apiVersion: 'operators.coreos.com/v1alpha1';
  kind: 'CatalogSource';
  metadata: {
    name: string;
    namespace: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    resourceVersion?: string;
  };
  spec: Record<string, unknown>;
  status?: { connectionState?: { lastObservedState?: string; address?: string; lastConnect?: string } };
}

const FIELD_MANAGER = 'opkit';
const READY = 'READY';
/** How often a CatalogSource that changed between read and apply (OLM writes its status) is read again. */
const APPLY_ATTEMPTS = 5;

type CatalogSourceApi = NonNullable<PublishOptions['api']>;

/** Creates or server-side applies the CatalogSource; with `notOurs`, only over one that is the caller's. */
async function writeCatalogSource(
  client: CatalogSourceApi,
  manifest: CatalogSource,
  where: string,
  notOurs: PublishOptions['notOurs'],
): Promise<void> {
  const apply = async (object: CatalogSource) => {
    await client.apply(object, { fieldManager: FIELD_MANAGER, force: true });
  };
  if (notOurs === undefined) {
    try {
      return await apply(manifest);
    } catch (err) {
      throw apiError(`apply ${where}`, err);
    }
  }
  for (let attempt = 1; ; attempt++) {
    let existing: CatalogSource | undefined;
    try {
      existing = await client.get<CatalogSource>(
        manifest,
        manifest.metadata.name,
        manifest.metadata.namespace,
      );
    } catch (err) {
      // Absent, or its kind not served: the create below says which.
      if (!isAbsent(err)) throw apiError(`read ${where}`, err);
    }
    if (existing === undefined) {
      try {
        await client.create(manifest, { fieldManager: FIELD_MANAGER });
        return;
      } catch (err) {
        if (!isAlreadyExists(err)) throw apiError(`create ${where}`, err);
        throw new CliError(
          'OPKIT_OBJECT_NOT_OURS',
          `${where} already exists and was not created by this run: it is left as it is`,
          { cause: err },
        );
      }
    }
    const reason = notOurs(existing);
    if (reason !== undefined) throw new CliError('OPKIT_OBJECT_NOT_OURS', reason);
    try {
      // The version just read is a precondition: a change since (a new owner's mark, say) answers 409.
      const { resourceVersion } = existing.metadata;
      return await apply({
        ...manifest,
        metadata: { ...manifest.metadata, ...(resourceVersion === undefined ? {} : { resourceVersion }) },
      });
    } catch (err) {
      if (!isConflict(err) || attempt >= APPLY_ATTEMPTS) throw apiError(`apply ${where}`, err);
    }
  }
}

/** A CatalogSource for a gRPC registry at an address or in an image. */
export function catalogSourceManifest(
  options: Omit<PublishOptions, 'log' | 'timeoutMs' | 'api' | 'notOurs'>,
): CatalogSource {
  const spec: Record<string, unknown> = { sourceType: 'grpc' };
  if (options.address !== undefined) spec.address = options.address;
  if (options.image !== undefined) spec.image = options.image;
  const grpcPodConfig: Record<string, unknown> = {};
  if (options.extractContent !== undefined)
    grpcPodConfig.extractContent = { catalogDir: options.extractContent };
  if (options.securityContextConfig !== undefined) {
    grpcPodConfig.securityContextConfig = options.securityContextConfig;
  }
  if (Object.keys(grpcPodConfig).length > 0) spec.grpcPodConfig = grpcPodConfig;
  if (options.displayName !== undefined) spec.displayName = options.displayName;
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'CatalogSource',
    metadata: {
      name: options.name,
      namespace: options.namespace,
      ...(options.labels === undefined ? {} : { labels: { ...options.labels } }),
      ...(options.annotations === undefined ? {} : { annotations: { ...options.annotations } }),
    },
    spec,
  };
}

/** A failed API call as one line: what was attempted, the HTTP status and the API server's message. */
export function apiError(what: string, err: unknown): CliError {
  const hint = ' (are the OLM CRDs installed?)';
  if (err instanceof ApiError) {
    return new CliError(
      'OPKIT_KUBE_API',
      `${what}: HTTP ${err.status}: ${err.statusMessage}${err.status === 404 ? hint : ''}`,
      { cause: err },
    );
  }
  if (err instanceof NoKindMatchError) {
    return new CliError('OPKIT_KUBE_API', `${what}: ${err.message}${hint}`, { cause: err });
  }
  return new CliError('OPKIT_KUBE_API', `${what}: ${(err as Error).message}`, { cause: err });
}

/**
 * `opkit catalog publish`: creates or updates the CatalogSource with server-side apply, then waits until
 * OLM reports its connection `READY`, logging every state it observes.
 *
 * @throws CliError `OPKIT_CATALOG_NOT_READY` naming the last observed state when the timeout passes
 */
export async function publishCatalog(options: PublishOptions): Promise<void> {
  if ((options.address === undefined) === (options.image === undefined)) {
    throw new CliError(
      'OPKIT_ARGUMENT_INVALID',
      'give exactly one of --address <host:port> or --image <reference>',
    );
  }
  // Kubernetes would refuse these names too, but only after the kubeconfig is read and the server asked.
  if (!/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(options.name)) {
    throw new CliError(
      'OPKIT_ARGUMENT_INVALID',
      `--name ${JSON.stringify(options.name)}: a CatalogSource name is lower-case letters, digits, '-' and '.'`,
    );
  }
  if (!/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(options.namespace)) {
    throw new CliError(
      'OPKIT_ARGUMENT_INVALID',
      `--namespace ${JSON.stringify(options.namespace)}: a namespace is lower-case letters, digits and '-' (at most 63)`,
    );
  }
  if (
    options.address !== undefined &&
    !/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/.test(options.address)
  ) {
    throw new CliError(
      'OPKIT_ARGUMENT_INVALID',
      `--address ${JSON.stringify(options.address)}: give <host>:<port> of the registry server, e.g. 127.0.0.1:50051`,
    );
  }
  if (options.image !== undefined) {
    const { checkImageReference } = await import('@opkit/olm/action/image-reference');
    checkImageReference('--image', options.image);
  }
  if (options.extractContent !== undefined) {
    if (options.image === undefined) {
      throw new CliError(
        'OPKIT_ARGUMENT_INVALID',
        '--extract-content needs --image: it names a directory in it',
      );
    }
    if (!options.extractContent.startsWith('/')) {
      throw new CliError(
        'OPKIT_ARGUMENT_INVALID',
        `--extract-content ${JSON.stringify(options.extractContent)}: give the catalog's absolute path in the image, e.g. /configs`,
      );
    }
  }
  // The connection is ours to close unless the caller gave the client.
  let kube: KubeConnection | undefined;
  let client = options.api;
  if (client === undefined) {
    kube = connectKube(options.kubeconfig);
    client = kube.client;
  }
  try {
    const manifest = catalogSourceManifest(options);
    const where = `CatalogSource ${options.namespace}/${options.name}`;
    await writeCatalogSource(client, manifest, where, options.notOurs);
    options.log(
      `applied ${where} (${options.address !== undefined ? `address ${options.address}` : `image ${options.image}`}${options.extractContent !== undefined ? `, content extracted from ${options.extractContent}` : ''})`,
    );

    const deadline = Date.now() + options.timeoutMs;
    let last: string | undefined;
    for (;;) {
      let current: CatalogSource;
      try {
        current = await client.get<CatalogSource>(manifest, options.name, options.namespace);
      } catch (err) {
        throw apiError(`read ${where}`, err);
      }
      const connection = current.status?.connectionState;
      // After an update the status may still describe the previous address; only a state for ours counts.
      const state =
        options.address === undefined ||
        connection?.address === undefined ||
        connection.address === options.address
          ? connection?.lastObservedState
          : undefined;
      if (state !== last) {
        options.log(`${where}: ${state ?? 'no connection state yet'}`);
        last = state;
      }
      if (state === READY) return;
      if (Date.now() >= deadline) {
        throw new CliError(
          'OPKIT_CATALOG_NOT_READY',
          `${where} did not become ${READY} within ${options.timeoutMs / 1000}s; last observed state: ${last ?? 'none (has OLM’s catalog operator seen it?)'}`,
        );
      }
      await new Promise((r) =>
        setTimeout(r, Math.min(options.pollIntervalMs ?? 500, Math.max(0, deadline - Date.now()))),
      );
    }
  } finally {
    await kube?.close();
  }
}

/** Parses a duration such as `120s`, `2m`, `1500ms` or a plain number of seconds. */
export function parseDuration(value: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(value.trim());
  if (!m) {
    throw new CliError(
      'OPKIT_ARGUMENT_INVALID',
      `--timeout ${JSON.stringify(value)}: expected a duration such as 120s, 2m or 500ms`,
    );
  }
  const n = Number(m[1]);
  return m[2] === 'ms' ? n : m[2] === 'm' ? n * 60_000 : n * 1000;
}
