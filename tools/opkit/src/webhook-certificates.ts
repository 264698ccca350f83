import { X509Certificate } from 'node:crypto';
import {
  type CertificateAndKey,
  certificateAuthority,
  issueServingCertificate,
} from '@opkit/controller-runtime/serving';
import type { Manifest } from '@opkit/olm';
import { CliError } from './cli-error.js';

/** A Secret as read back from the cluster (base64 data). */
export interface SecretData {
  readonly data?: Readonly<Record<string, string>>;
}

/** Where controller-runtime (and kubebuilder's manager patch) reads the webhook serving certificate. */
const DEFAULT_CERT_DIR = '/tmp/k8s-webhook-server/serving-certs';
/** The serving certificate is replaced on a deploy when it expires within this many days. */
const RENEW_BEFORE_DAYS = 30;
/** The authority is replaced when it expires within a year; its predecessor stays trusted meanwhile. */
const AUTHORITY_RENEW_BEFORE_DAYS = 365;
const DAY = 86_400_000;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every `clientConfig` that names a Service: CRD conversion and admission webhook configurations. */
function serviceClientConfigs(objects: readonly Manifest[]): Record<string, unknown>[] {
  const configs: Record<string, unknown>[] = [];
  for (const obj of objects) {
    if (obj.kind === 'CustomResourceDefinition') {
      const conversion =
        isRecord(obj.spec) && isRecord(obj.spec.conversion) ? obj.spec.conversion : undefined;
      const config = isRecord(conversion?.webhook) ? conversion.webhook.clientConfig : undefined;
      if (isRecord(config) && isRecord(config.service)) configs.push(config);
    } else if (obj.kind === 'MutatingWebhookConfiguration' || obj.kind === 'ValidatingWebhookConfiguration') {
      for (const webhook of Array.isArray(obj.webhooks) ? obj.webhooks : []) {
        const config = isRecord(webhook) ? webhook.clientConfig : undefined;
        if (isRecord(config) && isRecord(config.service)) configs.push(config);
      }
    }
  }
  return configs;
}

/** The Secret a Deployment mounts where its webhook server reads its certificate. */
function servingSecret(objects: readonly Manifest[]): { name: string; namespace: string } {
  for (const obj of objects.filter((o) => o.kind === 'Deployment')) {
    const pod =
      isRecord(obj.spec) && isRecord(obj.spec.template) && isRecord(obj.spec.template.spec)
        ? obj.spec.template.spec
        : {};
    const volumes = Array.isArray(pod.volumes) ? pod.volumes.filter(isRecord) : [];
    for (const container of (Array.isArray(pod.containers) ? pod.containers : []).filter(isRecord)) {
      const args = (Array.isArray(container.args) ? container.args : []).map(String);
      const dir = args.find((a) => a.startsWith('--webhook-cert-path='))?.split('=')[1] ?? DEFAULT_CERT_DIR;
      for (const mount of (Array.isArray(container.volumeMounts) ? container.volumeMounts : []).filter(
        isRecord,
      )) {
        if (String(mount.mountPath).replace(/\/$/, '') !== dir.replace(/\/$/, '')) continue;
        const volume = volumes.find((v) => v.name === mount.name);
        if (isRecord(volume?.secret) && typeof volume.secret.secretName === 'string') {
          return { name: volume.secret.secretName, namespace: obj.metadata.namespace ?? 'default' };
        }
      }
    }
  }
  throw new CliError(
    'OPKIT_WEBHOOK_CERT_VOLUME',
    `the manifests configure webhooks, but no Deployment mounts a Secret at its webhook certificate path (${DEFAULT_CERT_DIR} or --webhook-cert-path)`,
  );
}

function decoded(secret: SecretData | undefined, key: string): string | undefined {
  const value = secret?.data?.[key];
  return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
}

function validFor(pem: string | undefined, days: number, now: Date): X509Certificate | undefined {
  if (pem === undefined) return undefined;
  try {
    const x509 = new X509Certificate(pem);
    return new Date(x509.validTo).getTime() - now.getTime() > days * DAY ? x509 : undefined;
  } catch {
    return undefined;
  }
}

export interface ProvisionedCertificates {
  /** The manifests with every webhook's `caBundle` set. */
  readonly objects: Manifest[];
  /** The Secrets to apply: the serving certificate the manager mounts, and its authority. */
  readonly secrets: Manifest[];
  /** What happened, for the user. */
  readonly summary: string;
}

/**
 * Issues the webhook serving certificate when the manifests configure webhooks and nothing else does
 * (cert-manager's CA injection): an authority kept in the Secret `<name>-ca`, a serving certificate for every
 * webhook Service's DNS names in the Secret the manager mounts, and the authority's certificate as the
 * `caBundle` of every webhook. Both are kept across deploys; the serving certificate is re-issued within 30
 * days of expiry (the webhook server reloads it without a restart, and the CA bundle stays the same) and the
 * authority within a year of its own, with the old one still trusted until then.
 */
export function provisionWebhookCertificates(
  rendered: readonly Manifest[],
  existing: (namespace: string, name: string) => SecretData | undefined,
  now = new Date(),
): ProvisionedCertificates | undefined {
  const objects = structuredClone(rendered) as Manifest[];
  const configs = serviceClientConfigs(objects);
  if (configs.length === 0) return undefined;
  if (objects.some((o) => o.metadata.annotations?.['cert-manager.io/inject-ca-from'])) return undefined;
  const secret = servingSecret(objects);
  const hosts = [
    ...new Set(
      configs.flatMap((c) => {
        const service = c.service as { name?: string; namespace?: string };
        const base = `${service.name}.${service.namespace ?? secret.namespace}.svc`;
        return [base, `${base}.cluster.local`];
      }),
    ),
  ];

  const caSecret = existing(secret.namespace, `${secret.name}-ca`);
  const oldAuthority = { cert: decoded(caSecret, 'ca.crt'), key: decoded(caSecret, 'ca.key') };
  const keep = validFor(oldAuthority.cert, AUTHORITY_RENEW_BEFORE_DAYS, now);
  const authority: CertificateAndKey =
    keep && oldAuthority.cert && oldAuthority.key
      ? { cert: oldAuthority.cert, key: oldAuthority.key }
      : certificateAuthority({ commonName: `${secret.name}-ca`, now });
  const stillTrusted = !keep && validFor(oldAuthority.cert, 0, now) ? [oldAuthority.cert as string] : [];
  const bundle = [authority.cert, ...stillTrusted].join('');

  const servingSecretNow = existing(secret.namespace, secret.name);
  const current = { cert: decoded(servingSecretNow, 'tls.crt'), key: decoded(servingSecretNow, 'tls.key') };
  const currentX509 = validFor(current.cert, RENEW_BEFORE_DAYS, now);
  const coversHosts = currentX509 && hosts.every((h) => currentX509.checkHost(h) !== undefined);
  const signedByAuthority = currentX509?.checkIssued(new X509Certificate(authority.cert)) ?? false;
  const reuse = currentX509 && coversHosts && signedByAuthority && current.cert && current.key;
  const serving: CertificateAndKey = reuse
    ? { cert: current.cert as string, key: current.key as string }
    : issueServingCertificate({ commonName: hosts[0] ?? secret.name, hosts, authority, now });

  const caBundle = Buffer.from(bundle).toString('base64');
  for (const config of configs) config.caBundle = caBundle;
  const data = (values: Record<string, string>) =>
    Object.fromEntries(Object.entries(values).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
  const secrets: Manifest[] = [
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `${secret.name}-ca`, namespace: secret.namespace },
      type: 'Opaque',
      data: data({ 'ca.crt': authority.cert, 'ca.key': authority.key }),
    },
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: secret.name, namespace: secret.namespace },
      type: 'kubernetes.io/tls',
      data: data({ 'tls.crt': serving.cert, 'tls.key': serving.key, 'ca.crt': bundle }),
    },
  ];
  const summary = reuse
    ? `webhook certificate: kept (Secret ${secret.namespace}/${secret.name}, valid until ${currentX509.validTo})`
    : `webhook certificate: issued for ${hosts.join(', ')} (Secret ${secret.namespace}/${secret.name})`;
  return { objects, secrets, summary };
}
