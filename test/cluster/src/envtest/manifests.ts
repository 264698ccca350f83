import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ClusterError } from '../errors.js';

/** A Kubernetes object as read from a manifest file. */
export interface ManifestObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly [key: string]: unknown };
  readonly [key: string]: unknown;
}

/** Where the API server calls the operator's webhook server: `https://<host>:<port>` and the CA it trusts. */
export interface WebhookTarget {
  readonly host: string;
  readonly port: number;
  /** PEM of the CA that signed the webhook server's certificate. */
  readonly caCert: string;
}

export const WEBHOOK_CONFIGURATION_KINDS = [
  'MutatingWebhookConfiguration',
  'ValidatingWebhookConfiguration',
] as const;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function isManifestObject(value: unknown): value is ManifestObject {
  return (
    isRecord(value) &&
    typeof value.apiVersion === 'string' &&
    typeof value.kind === 'string' &&
    isRecord(value.metadata) &&
    typeof value.metadata.name === 'string'
  );
}

/** Every object in a YAML (or JSON) file of one or more documents; empty documents are skipped. */
export function readManifestFile(file: string): ManifestObject[] {
  const objects: ManifestObject[] = [];
  for (const document of parseAllDocuments(readFileSync(file, 'utf8'))) {
    if (document.errors.length > 0) {
      throw new ClusterError('CLUSTER_INVALID_OPTIONS', `${file}: ${document.errors[0]?.message}`);
    }
    const value: unknown = document.toJS();
    if (value === null || value === undefined) continue;
    if (!isManifestObject(value)) {
      throw new ClusterError(
        'CLUSTER_INVALID_OPTIONS',
        `${file}: a document is not a named Kubernetes object`,
      );
    }
    objects.push(value);
  }
  return objects;
}

const MANIFEST_FILE = /\.(ya?ml|json)$/;

/** The CustomResourceDefinitions in the manifest files of `directory` (not its subdirectories), by file name. */
export function readCrdDirectory(directory: string): ManifestObject[] {
  if (!existsSync(directory) || !statSync(directory).isDirectory()) {
    throw new ClusterError('CLUSTER_INVALID_OPTIONS', `CRD directory ${directory} does not exist`);
  }
  return readdirSync(directory)
    .filter((name) => MANIFEST_FILE.test(name))
    .sort()
    .flatMap((name) => readManifestFile(join(directory, name)))
    .filter((object) => object.kind === 'CustomResourceDefinition')
    .map((crd) => withConversionPatch(crd, directory));
}

/**
 * A kubebuilder layout keeps a CRD's conversion webhook stanza out of `config/crd/bases/` and patches it in
 * with kustomize from `config/crd/patches/webhook_in_<plural>.yaml`: a CRD read from a `bases` directory
 * gets that patch's `spec.conversion` when the CRD has none of its own, so conversion is served as deployed.
 */
function withConversionPatch(crd: ManifestObject, directory: string): ManifestObject {
  const spec = isRecord(crd.spec) ? crd.spec : {};
  const names = isRecord(spec.names) ? spec.names : {};
  if (spec.conversion !== undefined || basename(directory) !== 'bases' || typeof names.plural !== 'string') {
    return crd;
  }
  const patchFile = join(dirname(directory), 'patches', `webhook_in_${names.plural}.yaml`);
  if (!existsSync(patchFile)) return crd;
  const patch = readManifestFile(patchFile).find((object) => object.metadata.name === crd.metadata.name);
  const conversion = patch && isRecord(patch.spec) ? patch.spec.conversion : undefined;
  return conversion === undefined ? crd : { ...crd, spec: { ...spec, conversion } };
}

/** The webhook configurations in `file`; other kinds in it (the kubebuilder Service, say) are left out. */
export function readWebhookConfigurations(file: string): ManifestObject[] {
  if (!existsSync(file)) {
    throw new ClusterError('CLUSTER_INVALID_OPTIONS', `webhook configuration file ${file} does not exist`);
  }
  return readManifestFile(file).filter((object) =>
    (WEBHOOK_CONFIGURATION_KINDS as readonly string[]).includes(object.kind),
  );
}

/**
 * A client configuration that calls a Service is pointed at the webhook server under test instead (its URL
 * keeps the Service's path) and given the environment's CA; one that already has a URL is left as it is.
 */
function pointedAtTarget(clientConfig: unknown, target: WebhookTarget): unknown {
  if (!isRecord(clientConfig) || !isRecord(clientConfig.service)) return clientConfig;
  const path = typeof clientConfig.service.path === 'string' ? clientConfig.service.path : '';
  const host = target.host.includes(':') ? `[${target.host}]` : target.host;
  return {
    url: `https://${host}:${target.port}${path}`,
    caBundle: Buffer.from(target.caCert).toString('base64'),
  };
}

/** The webhook configuration with each webhook's Service replaced by the webhook server under test. */
export function webhookConfigurationForTarget(
  configuration: ManifestObject,
  target: WebhookTarget,
): ManifestObject {
  const webhooks = Array.isArray(configuration.webhooks) ? configuration.webhooks : [];
  return {
    ...configuration,
    webhooks: webhooks.map((webhook: unknown) =>
      isRecord(webhook)
        ? { ...webhook, clientConfig: pointedAtTarget(webhook.clientConfig, target) }
        : webhook,
    ),
  };
}

/** The CRD with its conversion webhook's Service (if it has one) replaced by the webhook server under test. */
export function crdForTarget(crd: ManifestObject, target: WebhookTarget): ManifestObject {
  const spec = isRecord(crd.spec) ? crd.spec : undefined;
  const conversion = spec && isRecord(spec.conversion) ? spec.conversion : undefined;
  const webhook = conversion && isRecord(conversion.webhook) ? conversion.webhook : undefined;
  if (!spec || !conversion || !webhook) return crd;
  return {
    ...crd,
    spec: {
      ...spec,
      conversion: {
        ...conversion,
        webhook: { ...webhook, clientConfig: pointedAtTarget(webhook.clientConfig, target) },
      },
    },
  };
}
