import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { configManifests, isNotFound, sampleProblems } from '@opkit/controller-runtime';
import { eventually, KubeRest, testKubeConfig } from '@opkit/test-cluster/vitest';
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
        'ClusterRoleBinding/redis-operator-manager-rolebinding',
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

  it('deploys to a cluster with an image given as an option, and undeploys', async () => {
    const env = { ...process.env, KUBECONFIG: inject('opkitKubeconfig') };
    const opkit = [join(root, '../../tools/opkit/bin/opkit.js')];
    const missing = await run(process.execPath, [...opkit, 'deploy', '--operator', root], { env }).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(missing).toMatchObject({ code: 1 });
    expect((missing as { stderr: string }).stderr).toContain("required option '--image <ref>' not specified");

    await run(
      process.execPath,
      [...opkit, 'deploy', '--operator', root, '--image', 'registry.example/redis-operator:0.2.0'],
      {
        env,
      },
    );
    const rest = new KubeRest(testKubeConfig());
    const deployment = await eventually('the operator Deployment to be available', async () => {
      const d = await rest.request<{
        spec: { template: { spec: { containers: { image: string }[] } } };
        status?: { availableReplicas?: number };
      }>(
        'GET',
        '/apis/apps/v1/namespaces/redis-operator-system/deployments/redis-operator-controller-manager',
      );
      return d.status?.availableReplicas === 1 ? d : undefined;
    });
    expect(deployment.spec.template.spec.containers[0]!.image).toBe('registry.example/redis-operator:0.2.0');

    await run(process.execPath, [...opkit, 'undeploy', '--operator', root], { env });
    await eventually(
      'the operator namespace to be gone',
      async () => {
        try {
          await rest.request('GET', '/api/v1/namespaces/redis-operator-system');
          return false;
        } catch (error) {
          return isNotFound(error) || (error as { status?: number }).status === 404;
        }
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    rest.close();
  });
});
