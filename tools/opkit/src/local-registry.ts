// A cluster's local registry as local clusters record it (KEP-1755, "Communicating a local registry"): the
// ConfigMap `kube-public/local-registry-hosting`, read by `opkit deploy` to build, push and deploy an operator
// image without `--image`, and by `opkit image build` to suggest a base that can be reached offline.
import type { LoadedKubeconfig } from '@opkit/controller-runtime/client';
import { parseReference } from '@opkit/oci';
import { parse } from 'yaml';
import { CliError } from './cli-error.js';

/** Where KEP-1755 puts the ConfigMap, and the key of its version 1 structure. */
export const LOCAL_REGISTRY_HOSTING = {
  namespace: 'kube-public',
  name: 'local-registry-hosting',
  key: 'localRegistryHosting.v1',
} as const;

/**
 * The base image an opkit cluster holds for operator images, as an annotation of the same ConfigMap: the KEP
 * freezes the fields of `localRegistryHosting.v1` and reserves the data keys for its later versions, so our
 * own fact goes where a prefixed name cannot collide with either.
 */
export const BASE_IMAGE_ANNOTATION = 'opkit.dev/base-image';

/** The local registry of a cluster, as a tool outside the cluster uses it. */
export interface LocalRegistry {
  /** `host[:port]` tools outside the cluster push to (the KEP's `host`). */
  readonly host: string;
  /** `host[:port]` image fields of deployed objects name (the KEP's `hostFromContainerRuntime`, else `host`). */
  readonly hostFromContainerRuntime: string;
  /** Where the cluster documents its registry (the KEP's `help`), when it says. */
  readonly help?: string;
  /** The Node base image the registry holds for operator images (opkit clusters only). */
  readonly baseImage?: string;
}

/** The parts of a ConfigMap this module reads. */
export interface ConfigMapLike {
  readonly metadata?: { readonly annotations?: Readonly<Record<string, string>> };
  readonly data?: Readonly<Record<string, string>>;
}

/** A registry host as an image reference starts with: a name or IPv4 address, or a bracketed IPv6 one, and a port. */
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The registry a `local-registry-hosting` ConfigMap describes, or `undefined` when it describes none (no v1
 * structure, or one without `host`: a cluster may record only `help`, to point at how to set a registry up).
 * Fields of later KEP versions and unknown fields are ignored, as the KEP asks of readers.
 *
 * @throws CliError `OPKIT_LOCAL_REGISTRY_INVALID` when the structure is not YAML, a host is not a host or the
 *   base-image annotation is not an image reference
 */
export function parseLocalRegistryHosting(configMap: ConfigMapLike): LocalRegistry | undefined {
  const where = `${LOCAL_REGISTRY_HOSTING.namespace}/${LOCAL_REGISTRY_HOSTING.name}`;
  const text = configMap.data?.[LOCAL_REGISTRY_HOSTING.key];
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = parse(text);
  } catch (error) {
    throw new CliError(
      'OPKIT_LOCAL_REGISTRY_INVALID',
      `ConfigMap ${where}: ${LOCAL_REGISTRY_HOSTING.key} is not YAML: ${(error as Error).message.split('\n')[0]}`,
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new CliError(
      'OPKIT_LOCAL_REGISTRY_INVALID',
      `ConfigMap ${where}: ${LOCAL_REGISTRY_HOSTING.key} is not a mapping`,
    );
  }
  const fields = value as Record<string, unknown>;
  const field = (name: string, check?: RegExp): string | undefined => {
    const v = fields[name];
    if (v === undefined || v === null || v === '') return undefined;
    if (typeof v !== 'string' || (check !== undefined && !check.test(v))) {
      throw new CliError(
        'OPKIT_LOCAL_REGISTRY_INVALID',
        `ConfigMap ${where}: ${LOCAL_REGISTRY_HOSTING.key}.${name} must be a registry host[:port], got ${JSON.stringify(v)}`,
      );
    }
    return v;
  };
  const host = field('host', HOST);
  const fromRuntime = field('hostFromContainerRuntime', HOST);
  const help = typeof fields.help === 'string' && fields.help !== '' ? fields.help : undefined;
  if (host === undefined) return undefined;
  const baseImage = configMap.metadata?.annotations?.[BASE_IMAGE_ANNOTATION];
  if (baseImage !== undefined && baseImage !== '') {
    try {
      parseReference(baseImage);
    } catch (error) {
      throw new CliError(
        'OPKIT_LOCAL_REGISTRY_INVALID',
        `ConfigMap ${where} metadata.annotations[${JSON.stringify(BASE_IMAGE_ANNOTATION)}] must be an image reference, got ${JSON.stringify(baseImage)}: ${(error as Error).message}`,
      );
    }
  }
  return {
    host,
    hostFromContainerRuntime: fromRuntime ?? host,
    ...(help === undefined ? {} : { help }),
    ...(baseImage === undefined || baseImage === '' ? {} : { baseImage }),
  };
}

/** The operator image `opkit deploy` pushes to a local registry: `<host>/<package>:<version>`. */
export function localOperatorImage(
  registry: LocalRegistry,
  operator: { readonly name: string; readonly version: string },
): { readonly push: string; readonly deploy: string } {
  const path = `${operator.name}:${operator.version}`;
  return { push: `${registry.host}/${path}`, deploy: `${registry.hostFromContainerRuntime}/${path}` };
}

/**
 * The local registry the cluster of a kubeconfig's current context records (the kubeconfig given, else
 * `$KUBECONFIG` or `~/.kube/config`, as kubectl picks it), or `undefined` when it records none.
 *
 * @throws CliError when the kubeconfig cannot be used, the cluster does not answer within `timeoutMs`, or the
 *   ConfigMap is malformed
 */
export async function readLocalRegistry(
  kubeconfig: string | undefined,
  options: { readonly timeoutMs?: number } = {},
): Promise<LocalRegistry | undefined> {
  // Loaded here: the parsing above is all `opkit image build` needs unless its base cannot be reached.
  const [{ directClient, isNotFound, KubeconfigError, loadKubeConfig }, { CONFIG_MAP }] = await Promise.all([
    import('@opkit/controller-runtime/client'),
    import('@opkit/controller-runtime/kinds'),
  ]);
  let config: LoadedKubeconfig;
  try {
    config = loadKubeConfig(kubeconfig);
  } catch (error) {
    if (!(error instanceof KubeconfigError)) throw error;
    throw new CliError('OPKIT_KUBECONFIG_INVALID', error.message, { cause: error });
  }
  const client = directClient(config, { requestTimeoutMs: options.timeoutMs ?? 30_000 });
  try {
    const configMap = await client.get(
      CONFIG_MAP,
      LOCAL_REGISTRY_HOSTING.name,
      LOCAL_REGISTRY_HOSTING.namespace,
    );
    return parseLocalRegistryHosting(configMap);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    if (error instanceof CliError) throw error;
    throw new CliError(
      'OPKIT_CLUSTER_UNREACHABLE',
      `cannot read ConfigMap ${LOCAL_REGISTRY_HOSTING.namespace}/${LOCAL_REGISTRY_HOSTING.name} from ${config.getCurrentCluster().server}: ${(error as Error).message}`,
      { cause: error },
    );
  } finally {
    await client.close();
  }
}
