import { X509Certificate } from 'node:crypto';
import type { Manifest } from '@opkit/olm';
import { describe, expect, it } from 'vitest';
import { provisionWebhookCertificates, type SecretData } from './webhook-certificates.js';

const NS = 'demo-system';
const service = (path: string) => ({ service: { name: 'demo-webhook-service', namespace: NS, path } });
const rendered: Manifest[] = [
  {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: { conversion: { strategy: 'Webhook', webhook: { clientConfig: service('/convert') } } },
  },
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'demo-validating' },
    webhooks: [{ name: 'vwidget.kb.io', clientConfig: service('/validate') }],
  },
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'demo-controller-manager', namespace: NS },
    spec: {
      template: {
        spec: {
          containers: [
            {
              name: 'manager',
              volumeMounts: [{ name: 'certs', mountPath: '/tmp/k8s-webhook-server/serving-certs' }],
            },
          ],
          volumes: [{ name: 'certs', secret: { secretName: 'webhook-server-cert' } }],
        },
      },
    },
  },
];

/** A cluster that remembers the Secrets each deploy applied. */
function cluster() {
  const secrets = new Map<string, SecretData>();
  return {
    read: (ns: string, name: string) => secrets.get(`${ns}/${name}`),
    store(applied: Manifest[]) {
      for (const s of applied) secrets.set(`${s.metadata.namespace}/${s.metadata.name}`, s as SecretData);
    },
  };
}

const pem = (s: Manifest | undefined, key: string) =>
  Buffer.from(String((s?.data as Record<string, string> | undefined)?.[key]), 'base64').toString();

describe('provisionWebhookCertificates (opkit deploy without cert-manager)', () => {
  it('issues a serving certificate for the webhook Service and sets the caBundle everywhere', () => {
    const result = provisionWebhookCertificates(rendered, () => undefined);
    expect(result?.secrets.map((s) => `${s.metadata.namespace}/${s.metadata.name}`)).toEqual([
      `${NS}/webhook-server-cert-ca`,
      `${NS}/webhook-server-cert`,
    ]);
    const serving = new X509Certificate(pem(result?.secrets[1], 'tls.crt'));
    const authority = new X509Certificate(pem(result?.secrets[0], 'ca.crt'));
    expect(serving.checkIssued(authority)).toBe(true);
    expect(serving.subjectAltName).toBe(
      `DNS:demo-webhook-service.${NS}.svc, DNS:demo-webhook-service.${NS}.svc.cluster.local`,
    );
    const bundle = Buffer.from(authority.toString()).toString('base64');
    const crdSpec = result?.objects[0]?.spec as
      | { conversion: { webhook: { clientConfig: { caBundle: string } } } }
      | undefined;
    expect(crdSpec?.conversion.webhook.clientConfig.caBundle).toBe(bundle);
    expect(
      (result?.objects[1]?.webhooks as { clientConfig: { caBundle: string } }[] | undefined)?.[0]
        ?.clientConfig.caBundle,
    ).toBe(bundle);
    expect(
      (rendered[0]?.spec as { conversion: { webhook: { clientConfig: object } } } | undefined)?.conversion
        .webhook.clientConfig,
    ).not.toHaveProperty('caBundle');
  });

  it('keeps the certificate across deploys and renews it within 30 days of expiry with the same authority', () => {
    const c = cluster();
    const first = provisionWebhookCertificates(rendered, c.read, new Date('2026-01-01T00:00:00Z'));
    c.store(first?.secrets ?? []);
    const again = provisionWebhookCertificates(rendered, c.read, new Date('2026-06-01T00:00:00Z'));
    expect(again?.summary).toMatch(/^webhook certificate: kept/);
    expect(pem(again?.secrets[1], 'tls.crt')).toBe(pem(first?.secrets[1], 'tls.crt'));
    const late = provisionWebhookCertificates(rendered, c.read, new Date('2026-12-15T00:00:00Z'));
    expect(late?.summary).toMatch(/^webhook certificate: issued/);
    expect(pem(late?.secrets[1], 'tls.crt')).not.toBe(pem(first?.secrets[1], 'tls.crt'));
    expect(pem(late?.secrets[0], 'ca.crt')).toBe(pem(first?.secrets[0], 'ca.crt'));
  });

  it('replaces an expiring authority while the old one stays in the bundle', () => {
    const c = cluster();
    const first = provisionWebhookCertificates(rendered, c.read, new Date('2026-01-01T00:00:00Z'));
    c.store(first?.secrets ?? []);
    const later = provisionWebhookCertificates(rendered, c.read, new Date('2035-06-01T00:00:00Z'));
    const oldCa = pem(first?.secrets[0], 'ca.crt');
    expect(pem(later?.secrets[0], 'ca.crt')).not.toBe(oldCa);
    expect(pem(later?.secrets[1], 'ca.crt')).toContain(oldCa);
  });

  it('leaves the work to cert-manager when it injects the CA, and names what is missing otherwise', () => {
    const injected = rendered.map((o) => ({
      ...o,
      metadata: { ...o.metadata, annotations: { 'cert-manager.io/inject-ca-from': `${NS}/serving-cert` } },
    }));
    expect(provisionWebhookCertificates(injected, () => undefined)).toBeUndefined();
    expect(provisionWebhookCertificates(rendered.slice(2), () => undefined)).toBeUndefined();
    expect(() => provisionWebhookCertificates(rendered.slice(0, 2), () => undefined)).toThrow(
      'no Deployment mounts a Secret at its webhook certificate path',
    );
  });
});
