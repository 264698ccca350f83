import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  crdForTarget,
  readCrdDirectory,
  readWebhookConfigurations,
  webhookConfigurationForTarget,
} from './manifests.js';

const target = { host: '127.0.0.1', port: 12345, caCert: '-----BEGIN CERTIFICATE-----\nCA\n' };
const caBundle = Buffer.from(target.caCert).toString('base64');
const serviceConfig = (path?: string) => ({
  service: { name: 'webhook-service', namespace: 'system', path },
});

const crd = (conversion?: object) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.test' },
  spec: { group: 'example.test', names: { plural: 'widgets' }, ...(conversion ? { conversion } : {}) },
});

let scratch: string | undefined;
afterEach(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
});
const write = (relative: string, text: string) => {
  scratch ??= mkdtempSync(join(tmpdir(), 'envtest-manifests-'));
  const path = join(scratch, relative);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  return path;
};

describe('envtest manifests', () => {
  it('points each webhook that calls a Service at the webhook server, keeping the path, and leaves URLs alone', () => {
    const configuration = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'v' },
      webhooks: [
        { name: 'a', clientConfig: serviceConfig('/validate-a'), sideEffects: 'None' },
        { name: 'b', clientConfig: serviceConfig() },
        { name: 'c', clientConfig: { url: 'https://elsewhere.test/c' } },
      ],
    };
    expect(webhookConfigurationForTarget(configuration, target).webhooks).toEqual([
      {
        name: 'a',
        clientConfig: { url: 'https://127.0.0.1:12345/validate-a', caBundle },
        sideEffects: 'None',
      },
      { name: 'b', clientConfig: { url: 'https://127.0.0.1:12345', caBundle } },
      { name: 'c', clientConfig: { url: 'https://elsewhere.test/c' } },
    ]);
  });

  it('points a CRD’s conversion webhook at the webhook server and leaves a CRD without one as it is', () => {
    const converted = crdForTarget(
      crd({
        strategy: 'Webhook',
        webhook: { clientConfig: serviceConfig('/convert'), conversionReviewVersions: ['v1'] },
      }),
      target,
    );
    expect(converted.spec).toMatchObject({
      conversion: {
        strategy: 'Webhook',
        webhook: {
          clientConfig: { url: 'https://127.0.0.1:12345/convert', caBundle },
          conversionReviewVersions: ['v1'],
        },
      },
    });
    const plain = crd({ strategy: 'None' });
    expect(crdForTarget(plain, target)).toBe(plain);
  });

  it('reads CRDs from a bases directory with the conversion stanza of kubebuilder’s patch, and only CRDs', () => {
    const doc = (object: object) => JSON.stringify(object);
    write(
      'crd/bases/example.test_widgets.yaml',
      `${doc(crd())}\n---\n${doc({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } })}\n`,
    );
    write('crd/bases/README.txt', 'not a manifest');
    write(
      'crd/patches/webhook_in_widgets.yaml',
      doc({ ...crd({ strategy: 'Webhook', webhook: { clientConfig: serviceConfig('/convert') } }) }),
    );
    const [read, ...others] = readCrdDirectory(join(scratch ?? '', 'crd/bases'));
    expect(others).toEqual([]);
    expect(read?.spec).toMatchObject({ conversion: { strategy: 'Webhook' } });
  });

  it('says which file or directory is missing', () => {
    expect(() => readCrdDirectory('/no/such/crds')).toThrow('CRD directory /no/such/crds does not exist');
    expect(() => readWebhookConfigurations('/no/such.yaml')).toThrow(
      'webhook configuration file /no/such.yaml does not exist',
    );
  });
});
