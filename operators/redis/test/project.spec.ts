import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { configManifests, sampleProblems } from '@opkit/controller-runtime/manifests';
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

describe('the project’s config/', () => {
  it('holds the manifests generated from the TypeScript sources, and valid samples', () => {
    for (const [path, text] of Object.entries(configManifests(manifestsSpec))) {
      expect(readFileSync(join(root, path), 'utf8'), `${path} is stale: run nx run redis:manifests`).toBe(
        text,
      );
    }
    expect(sampleProblems(root, manifestsSpec)).toEqual([]);
  });

  it('runs locally (nx run redis:run) with the operand image the deployed manager is given', () => {
    const manager = parseAllDocuments(readFileSync(join(root, 'config/manager/manager.yaml'), 'utf8'))
      .map((d) => d.toJS() as { kind?: string })
      .find((o) => o.kind === 'Deployment') as {
      spec: { template: { spec: { containers: { env?: { name: string; value?: string }[] }[] } } };
    };
    const deployed = manager.spec.template.spec.containers[0]?.env?.find(
      (e) => e.name === 'RELATED_IMAGE_REDIS',
    )?.value;
    expect(deployed).toMatch(/^docker\.io\/library\//);
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      nx: { targets: { run: { options: { command: string } } } };
    };
    // A default only: an image the user exports wins, and a deployed operator without one still says so.
    expect(pkg.nx.targets.run.options.command).toContain(
      `RELATED_IMAGE_REDIS="\${RELATED_IMAGE_REDIS:-${deployed}}"`,
    );
  });

  it('renders with kustomize into the kubebuilder set of objects', async () => {
    const { stdout } = await run('kubectl', ['kustomize', join(root, 'config', 'default')]);
    const kinds = parseAllDocuments(stdout).map((d) => {
      const o = d.toJS() as { kind: string; metadata: { name: string } };
      return `${o.kind}/${o.metadata.name}`;
    });
    expect(kinds.sort()).toEqual(
      [
        'ClusterRole/redis-operator-manager-role',
        'ClusterRole/redis-operator-rediscluster-editor-role',
        'ClusterRole/redis-operator-rediscluster-viewer-role',
        'ClusterRole/redis-operator-metrics-auth-role',
        'ClusterRole/redis-operator-metrics-reader',
        'ClusterRoleBinding/redis-operator-manager-rolebinding',
        'ClusterRoleBinding/redis-operator-metrics-auth-rolebinding',
        'Service/redis-operator-controller-manager-metrics-service',
        'CustomResourceDefinition/redisclusters.cache.example.com',
        'Deployment/redis-operator-controller-manager',
        'Namespace/redis-operator-system',
        'Role/redis-operator-leader-election-role',
        'RoleBinding/redis-operator-leader-election-rolebinding',
        'ServiceAccount/redis-operator-controller-manager',
      ].sort(),
    );
    // No RBAC rule grants a wildcard.
    expect(stdout).not.toMatch(/- ['"]?\*['"]?$/m);
  });

  it('deploys its image to the cluster: the manager pod runs it, forms a Redis Cluster, and undeploy removes everything', async () => {
    const rest = new KubeRest(testKubeConfig());
    const operator = await deployOperator({
      rest,
      kubeconfig: inject('opkitKubeconfig'),
      registry: inject('opkitRegistry'),
      operatorDir: root,
      repository: 'redis-operator',
      namespace: 'redis-operator-system',
    });
    expect(operator.pod.imageID).toBe(`${operator.image.replace(/:dev$/, '')}@${operator.digest}`);

    // In the cluster, with its ServiceAccount: six redis pods form a healthy cluster.
    const ns = `deployed-${Date.now().toString(36)}`;
    await rest.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
    });
    await rest.request('POST', `/apis/cache.example.com/v1/namespaces/${ns}/redisclusters`, {
      body: {
        apiVersion: 'cache.example.com/v1',
        kind: 'RedisCluster',
        metadata: { name: 'deployed' },
        spec: { size: 6 },
      },
    });
    const healthy = await eventually(
      'the RedisCluster to be healthy',
      async () => {
        const r = await rest.request<{
          status?: {
            clusterState?: string;
            slotsAssigned?: number;
            nodes?: string[];
            conditions?: { type: string; status: string }[];
          };
        }>('GET', `/apis/cache.example.com/v1/namespaces/${ns}/redisclusters/deployed`);
        const available = r.status?.conditions?.some((c) => c.type === 'Available' && c.status === 'True');
        return available && r.status?.clusterState === 'ok' && r.status.slotsAssigned === 16384
          ? r
          : undefined;
      },
      { timeoutMs: 180_000, intervalMs: 1000 },
    );
    expect(healthy.status?.nodes).toHaveLength(6);
    expect(await operator.log()).not.toMatch(RBAC_DENIED);
    // Metrics over HTTPS through the metrics Service, only to a caller allowed to get /metrics.
    expect((await operator.metrics()).status).toBe(401);
    expect((await operator.metrics(await operator.scraperToken('stranger', { reader: false }))).status).toBe(
      403,
    );
    const scraped = await operator.metrics(await operator.scraperToken('scraper', { reader: true }));
    expect(scraped.status).toBe(200);
    expect(scraped.body).toContain('redis_cluster_slots_assigned');
    await rest.request('DELETE', `/api/v1/namespaces/${ns}`);

    await operator.undeploy();
    rest.close();
  });
});
