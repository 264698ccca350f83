import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { configManifests, sampleProblems } from '@opkit/controller-runtime';
import {
  deployOperator,
  eventually,
  KubeRest,
  RBAC_DENIED,
  testKubeConfig,
} from '@opkit/test-cluster/vitest';
import { describe, expect, inject, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { manifestsSpec } from '../src/manifests/generate.js';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..');
const opkit = join(root, '../../tools/opkit/bin/opkit.js');

describe('the project’s config/', () => {
  it('holds the manifests generated from the TypeScript sources, and valid samples', () => {
    for (const [path, text] of Object.entries(configManifests(manifestsSpec))) {
      expect(readFileSync(join(root, path), 'utf8'), `${path} is stale: run nx run memcached:manifests`).toBe(
        text,
      );
    }
    expect(sampleProblems(root, manifestsSpec)).toEqual([]);
  });

  it('renders with kustomize into the kubebuilder set of objects', async () => {
    const { stdout } = await run('kubectl', ['kustomize', join(root, 'config', 'default')]);
    const kinds = parseAllDocuments(stdout).map((d) => {
      const o = d.toJS() as { kind: string; metadata: { name: string } };
      return `${o.kind}/${o.metadata.name}`;
    });
    expect(kinds.sort()).toEqual(
      [
        'ClusterRole/memcached-operator-manager-role',
        'ClusterRole/memcached-operator-memcached-editor-role',
        'ClusterRole/memcached-operator-memcached-viewer-role',
        'ClusterRole/memcached-operator-metrics-auth-role',
        'ClusterRole/memcached-operator-metrics-reader',
        'ClusterRoleBinding/memcached-operator-manager-rolebinding',
        'ClusterRoleBinding/memcached-operator-metrics-auth-rolebinding',
        'Service/memcached-operator-controller-manager-metrics-service',
        'CustomResourceDefinition/memcacheds.cache.example.com',
        'Deployment/memcached-operator-controller-manager',
        'Namespace/memcached-operator-system',
        'Role/memcached-operator-leader-election-role',
        'RoleBinding/memcached-operator-leader-election-rolebinding',
        'ServiceAccount/memcached-operator-controller-manager',
      ].sort(),
    );
    // No RBAC rule grants a wildcard.
    expect(stdout).not.toMatch(/- ['"]?\*['"]?$/m);
  });

  it('deploys its image to the cluster: the manager pod runs it, reconciles, and undeploy removes everything', async () => {
    const missing = await run(process.execPath, [opkit, 'deploy', '--operator', root], {
      env: { ...process.env, KUBECONFIG: inject('opkitKubeconfig') },
    }).catch((e: { code: number; stderr: string }) => e);
    expect(missing).toMatchObject({ code: 1 });
    expect((missing as { stderr: string }).stderr).toContain("required option '--image <ref>' not specified");

    const rest = new KubeRest(testKubeConfig());
    const operator = await deployOperator({
      rest,
      kubeconfig: inject('opkitKubeconfig'),
      registry: inject('opkitRegistry'),
      operatorDir: root,
      repository: 'memcached-operator',
      namespace: 'memcached-operator-system',
    });
    expect(operator.pod.image).toBe(operator.image);
    expect(operator.pod.imageID).toBe(`${operator.image.replace(/:dev$/, '')}@${operator.digest}`);

    // In the cluster, with its ServiceAccount: a Memcached becomes Available.
    const ns = `deployed-${Date.now().toString(36)}`;
    await rest.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
    });
    await rest.request('POST', `/apis/cache.example.com/v1alpha1/namespaces/${ns}/memcacheds`, {
      body: {
        apiVersion: 'cache.example.com/v1alpha1',
        kind: 'Memcached',
        metadata: { name: 'deployed' },
        spec: { size: 1 },
      },
    });
    await eventually(
      'the Memcached to be Available',
      async () => {
        const m = await rest.request<{ status?: { conditions?: { type: string; status: string }[] } }>(
          'GET',
          `/apis/cache.example.com/v1alpha1/namespaces/${ns}/memcacheds/deployed`,
        );
        return m.status?.conditions?.some((c) => c.type === 'Available' && c.status === 'True') || undefined;
      },
      { timeoutMs: 120_000 },
    );
    const log = await operator.log();
    expect(log).toContain('"msg"');
    expect(log).not.toMatch(RBAC_DENIED);
    // Metrics over HTTPS through the metrics Service, only to a caller allowed to get /metrics.
    expect((await operator.metrics()).status).toBe(401);
    expect((await operator.metrics(await operator.scraperToken('stranger', { reader: false }))).status).toBe(
      403,
    );
    const scraped = await operator.metrics(await operator.scraperToken('scraper', { reader: true }));
    expect(scraped.status).toBe(200);
    expect(scraped.body).toContain('controller_runtime_reconcile_total');
    await rest.request('DELETE', `/api/v1/namespaces/${ns}`);

    await operator.undeploy();
    rest.close();
  });
});
