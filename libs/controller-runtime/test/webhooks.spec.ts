import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, testKubeConfig, useTestNamespace } from '@opkit/test-cluster/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isNotFound } from '../src/errors/errors.js';
import { createLogger } from '../src/log/index.js';
import { Manager } from '../src/manager/manager.js';
import { RuntimeMetrics } from '../src/metrics/runtime-metrics.js';
import type { KubeObject } from '../src/object.js';
import { selfSignedCertificate } from '../src/serving/certificates.js';
import { invalidObject } from '../src/webhook/admission.js';
import { stashFields, takeStashedFields } from '../src/webhook/conversion.js';
import { schemaValidator } from '../src/webhook/schema-validator.js';
import { webhookManagedBy } from '../src/webhook/webhook-builder.js';

// The runtime's webhooks called by a real API server: a kind served at two versions with a conversion
// webhook (v2 the hub and storage version, v1 a deprecated spoke), and defaulting and validating webhooks
// registered for the hub only, which the API server reaches for v1 requests by converting.

const GROUP = 'webhooks.opkit.dev';
const V1 = { apiVersion: `${GROUP}/v1`, kind: 'Gizmo' } as const;
const V2 = { apiVersion: `${GROUP}/v2`, kind: 'Gizmo' } as const;
const STASH = `${GROUP}/v2-fields`;
const SELECTOR = { matchLabels: { 'opkit-webhook-test': 'true' } };

interface GizmoV1 extends KubeObject {
  spec: { size: number };
}
interface GizmoV2 extends KubeObject {
  spec: { replicas: number; mode?: string };
}

const specV1 = { type: 'object', properties: { size: { type: 'integer' } }, required: ['size'] };
const specV2 = {
  type: 'object',
  properties: { replicas: { type: 'integer' }, mode: { type: 'string' } },
  required: ['replicas'],
};
const schemaOf = (spec: object) => ({ type: 'object', properties: { spec } });

const certDir = mkdtempSync(join(tmpdir(), 'webhook-test-'));
const serving = selfSignedCertificate({ commonName: 'gizmo-webhook', hosts: ['127.0.0.1'] });
writeFileSync(join(certDir, 'tls.crt'), serving.cert);
writeFileSync(join(certDir, 'tls.key'), serving.key);
const caBundle = Buffer.from(serving.cert).toString('base64');

const warnings: string[] = [];
let manager: Manager;
const stop = new AbortController();
let running: Promise<void>;
const ns = useTestNamespace({ prefix: 'webhooks', labels: { 'opkit-webhook-test': 'true' } });

function crd(url: string) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `gizmos.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' },
      conversion: {
        strategy: 'Webhook',
        webhook: { clientConfig: { url: `${url}/convert`, caBundle }, conversionReviewVersions: ['v1'] },
      },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: false,
          deprecated: true,
          deprecationWarning: `${GROUP}/v1 Gizmo is deprecated; use ${GROUP}/v2 Gizmo`,
          schema: { openAPIV3Schema: schemaOf(specV1) },
        },
        { name: 'v2', served: true, storage: true, schema: { openAPIV3Schema: schemaOf(specV2) } },
      ],
    },
  };
}

function webhookConfiguration(kind: 'Mutating' | 'Validating', path: string, url: string) {
  const prefix = kind === 'Mutating' ? 'm' : 'v';
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: `${kind}WebhookConfiguration`,
    metadata: { name: `${prefix}gizmo.${GROUP}` },
    webhooks: [
      {
        name: `${prefix}gizmo.${GROUP}`,
        clientConfig: { url: `${url}${path}`, caBundle },
        rules: [
          {
            apiGroups: [GROUP],
            apiVersions: ['v2'],
            operations: ['CREATE', 'UPDATE'],
            resources: ['gizmos'],
          },
        ],
        matchPolicy: 'Equivalent',
        namespaceSelector: SELECTOR,
        failurePolicy: 'Fail',
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        timeoutSeconds: 10,
      },
    ],
  };
}

async function replace(obj: KubeObject): Promise<void> {
  const api = manager.apiClient;
  const type = { apiVersion: obj.apiVersion ?? '', kind: obj.kind ?? '' };
  try {
    const current = await api.get(type, obj.metadata.name ?? '');
    await api.update({
      ...obj,
      metadata: { ...obj.metadata, resourceVersion: current.metadata.resourceVersion },
    });
  } catch (error) {
    if (!isNotFound(error)) throw error;
    await api.create(obj);
  }
}

const configurations = [
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    name: `mgizmo.${GROUP}`,
  },
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    name: `vgizmo.${GROUP}`,
  },
  { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: `gizmos.${GROUP}` },
];

beforeAll(async () => {
  manager = new Manager({
    kubeConfig: testKubeConfig(),
    logger: createLogger({ level: 'error' }),
    metrics: new RuntimeMetrics({ processMetrics: false }),
    webhook: { host: '127.0.0.1', port: 0, certPath: certDir },
    healthProbeBindAddress: '127.0.0.1:0',
  });
  manager.transport.onWarning = (w) => warnings.push(w);
  const registration = webhookManagedBy(manager)
    .for<GizmoV2>(V2, { schema: schemaValidator(schemaOf(specV2)) })
    .withDefaulter((gizmo) => {
      gizmo.spec.mode ??= 'standard';
    })
    .withValidator({
      validateCreate: (gizmo) => checkReplicas(gizmo),
      validateUpdate: (_old, gizmo) => checkReplicas(gizmo),
    })
    .withConversion('v2', {
      v1: {
        toHub: (o: GizmoV1): GizmoV2 => {
          const kept = takeStashedFields(o, STASH);
          const mode = typeof kept?.mode === 'string' ? kept.mode : undefined;
          return { ...o, spec: { replicas: o.spec.size, ...(mode ? { mode } : {}) } };
        },
        fromHub: (h: GizmoV2): GizmoV1 => {
          const out: GizmoV1 = { ...h, spec: { size: h.spec.replicas } };
          stashFields(out, STASH, { mode: h.spec.mode });
          return out;
        },
      },
    })
    .complete();
  running = manager.start(stop.signal);
  await eventually('the webhook server to listen', async () => manager.webhookServer?.address);
  const url = `https://127.0.0.1:${manager.webhookServer?.address?.port}`;
  await replace(crd(url));
  await replace(webhookConfiguration('Mutating', registration.mutatingPath ?? '', url));
  await replace(webhookConfiguration('Validating', registration.validatingPath ?? '', url));
  await eventually('the Gizmo CRD to be served', async () => {
    await manager.apiClient.mapping(V1.apiVersion, V1.kind);
    return true;
  });
});

function checkReplicas(gizmo: GizmoV2): readonly string[] | undefined {
  if (gizmo.spec.replicas > 5) {
    throw invalidObject(gizmo, [
      { field: 'spec.replicas', value: gizmo.spec.replicas, message: 'must be at most 5' },
    ]);
  }
  return gizmo.spec.replicas === 5 ? ['5 replicas is the most a gizmo may have'] : undefined;
}

afterAll(async () => {
  // Nothing may be left that calls a webhook no longer served: namespace deletion would hang on it.
  for (const { name, ...type } of configurations)
    await manager.apiClient.delete({ ...type, name }).catch(() => {});
  stop.abort();
  await running;
  rmSync(certDir, { recursive: true, force: true });
});

describe('webhooks on a real API server', () => {
  it('converts between versions through the hub, defaults and validates a v1 request at v2', async () => {
    const api = manager.apiClient;
    await api.create({ ...V1, metadata: { name: 'g', namespace: ns.name }, spec: { size: 2 } });
    expect(warnings).toContain(`${GROUP}/v1 Gizmo is deprecated; use ${GROUP}/v2 Gizmo`);

    const stored = await api.get<GizmoV2>(V2, 'g', ns.name);
    expect(stored.spec).toEqual({ replicas: 2, mode: 'standard' });
    const old = await api.get<GizmoV1>(V1, 'g', ns.name);
    expect(old.spec).toEqual({ size: 2 });
    expect(old.metadata.annotations).toEqual({ [STASH]: '{"mode":"standard"}' });
    expect(old.metadata.uid).toBe(stored.metadata.uid);

    await expect(
      api.create({ ...V1, metadata: { name: 'big', namespace: ns.name }, spec: { size: 9 } }),
    ).rejects.toThrow(
      `admission webhook "vgizmo.${GROUP}" denied the request: Gizmo.${GROUP} "big" is invalid: spec.replicas: Invalid value: 9: must be at most 5`,
    );
    warnings.length = 0;
    await api.create({ ...V2, metadata: { name: 'most', namespace: ns.name }, spec: { replicas: 5 } });
    expect(warnings).toContain('5 replicas is the most a gizmo may have');
  });

  it('keeps what v1 cannot express through an update made at v1', async () => {
    const api = manager.apiClient;
    await api.create({
      ...V2,
      metadata: { name: 'fast', namespace: ns.name },
      spec: { replicas: 1, mode: 'fast' },
    });
    const old = await api.get<GizmoV1>(V1, 'fast', ns.name);
    await api.update<GizmoV1>({ ...old, spec: { size: 3 } });
    const after = await api.get<GizmoV2>(V2, 'fast', ns.name);
    expect(after.spec).toEqual({ replicas: 3, mode: 'fast' });
    expect(after.metadata.annotations).toBeUndefined();
    const listed = await api.list<GizmoV1>(V1, { namespace: ns.name });
    expect(listed.items.map((g) => g.spec.size)).toEqual([3]);

    // Ready only while the webhook server completes TLS handshakes, and not held back by the caches, which
    // may need the conversion webhook that a Service routes to ready pods only.
    const readyz = await fetch(`http://127.0.0.1:${manager.healthProbeAddress?.port}/readyz?verbose`);
    const checks = await readyz.text();
    expect(checks).toContain('[+]webhook ok');
    expect(checks).not.toContain('informers');

    const counted = await manager.metrics.webhookRequests.get();
    for (const webhook of [
      '/convert',
      '/mutate-webhooks-opkit-dev-v2-gizmo',
      '/validate-webhooks-opkit-dev-v2-gizmo',
    ]) {
      expect(counted.values).toContainEqual(expect.objectContaining({ labels: { webhook, code: '200' } }));
    }
  });
});
