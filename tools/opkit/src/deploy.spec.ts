import type { Manifest } from '@opkit/olm';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { deployResult } from './deploy.js';
import { formatResult } from './output.js';

const NS = 'memcached-operator-system';
const manifests: Manifest[] = [
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
  {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'memcacheds.cache.example.com' },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'memcached-operator-controller-manager', namespace: NS },
    spec: { replicas: 1 },
  },
  {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'webhook-server-cert', namespace: NS },
    type: 'kubernetes.io/tls',
    data: { 'tls.key': 'c2VjcmV0' },
  },
];
const options = {
  operator: '/src/operators/memcached',
  image: 'registry.example.com/memcached-operator:0.3.0',
  overlay: 'default',
  fieldManager: 'memcached-deploy',
};

describe('the result of opkit deploy -o json|yaml', () => {
  it('names each object applied, in order, with where the manifests came from', () => {
    expect(deployResult(manifests, options)).toEqual({
      operator: '/src/operators/memcached',
      image: 'registry.example.com/memcached-operator:0.3.0',
      overlay: 'config/default',
      fieldManager: 'memcached-deploy',
      applied: [
        { apiVersion: 'v1', kind: 'Namespace', name: NS },
        {
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          name: 'memcacheds.cache.example.com',
        },
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          name: 'memcached-operator-controller-manager',
          namespace: NS,
        },
        { apiVersion: 'v1', kind: 'Secret', name: 'webhook-server-cert', namespace: NS },
      ],
    });
  });

  it('says what happened to the webhook certificate, and never prints a Secret’s data', async () => {
    const summary = `webhook certificate: issued for memcached-operator-webhook-service.${NS}.svc (Secret ${NS}/webhook-server-cert)`;
    const result = deployResult(manifests, {
      ...options,
      overlay: 'with-certmanager',
      webhookCertificate: summary,
    });
    expect(result).toMatchObject({ overlay: 'config/with-certmanager', webhookCertificate: summary });
    const json = await formatResult('json', result, 'unused');
    expect(JSON.parse(json)).toEqual(result);
    expect(json.endsWith('}\n')).toBe(true);
    const yaml = await formatResult('yaml', result, 'unused');
    expect(parse(yaml)).toEqual(result);
    for (const printed of [json, yaml]) {
      expect(printed).not.toContain('c2VjcmV0');
      expect(printed).not.toContain('replicas');
    }
  });

  it('prints kubectl’s lines unchanged as text', async () => {
    const lines = 'namespace/memcached-operator-system serverside-applied\n';
    expect(await formatResult('text', deployResult(manifests, options), lines)).toBe(lines);
  });
});
