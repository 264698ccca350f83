import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { configManifests, sampleProblems } from '@opkit/controller-tools/manifests';
import { opkitScript } from '@opkit/test-cluster';
import { describeOperatorProject, eventually } from '@opkit/test-cluster/vitest';
import { expect, inject, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { manifestsSpec } from '../src/manifests/generate.js';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..');
const opkit = opkitScript();

describeOperatorProject(
  {
    root,
    name: 'memcached',
    generatedConfig: () => configManifests(manifestsSpec),
    sampleProblems: () => sampleProblems(root, manifestsSpec),
    operandImageEnv: 'RELATED_IMAGE_MEMCACHED',
    expectedKinds: [
      'ClusterRole/memcached-operator-manager-role',
      'ClusterRole/memcached-operator-memcached-editor-role',
      'ClusterRole/memcached-operator-memcached-viewer-role',
      'ClusterRole/memcached-operator-metrics-auth-role',
      'ClusterRole/memcached-operator-metrics-reader',
      'ClusterRoleBinding/memcached-operator-manager-rolebinding',
      'ClusterRoleBinding/memcached-operator-metrics-auth-rolebinding',
      'Service/memcached-operator-controller-manager-metrics-service',
      'Service/memcached-operator-webhook-service',
      'MutatingWebhookConfiguration/memcached-operator-mutating-webhook-configuration',
      'ValidatingWebhookConfiguration/memcached-operator-validating-webhook-configuration',
      'CustomResourceDefinition/memcacheds.cache.example.com',
      'Deployment/memcached-operator-controller-manager',
      'Namespace/memcached-operator-system',
      'Role/memcached-operator-leader-election-role',
      'RoleBinding/memcached-operator-leader-election-rolebinding',
      'ServiceAccount/memcached-operator-controller-manager',
    ],
    deployed: {
      does: 'reconciles',
      metric: 'controller_runtime_reconcile_total',
      exercise: async ({ rest, operator, namespace: ns }) => {
        // A Memcached becomes Available. At v1alpha1, so the API server calls the conversion webhook, through
        // its Service as soon as kube-proxy routes to the ready manager pod.
        await eventually('a v1alpha1 Memcached to be accepted', () =>
          rest.request('POST', `/apis/cache.example.com/v1alpha1/namespaces/${ns}/memcacheds`, {
            body: {
              apiVersion: 'cache.example.com/v1alpha1',
              kind: 'Memcached',
              metadata: { name: 'deployed' },
              spec: { size: 1 },
            },
          }),
        );
        await eventually(
          'the Memcached to be Available',
          async () => {
            const m = await rest.request<{ status?: { conditions?: { type: string; status: string }[] } }>(
              'GET',
              `/apis/cache.example.com/v1alpha1/namespaces/${ns}/memcacheds/deployed`,
            );
            return (
              m.status?.conditions?.some((c) => c.type === 'Available' && c.status === 'True') || undefined
            );
          },
          { timeoutMs: 120_000 },
        );
        // The webhooks answer through their Service: v1alpha1 was converted into the stored v1beta1, defaulted.
        const stored = await rest.request<{ spec: Record<string, unknown> }>(
          'GET',
          `/apis/cache.example.com/v1beta1/namespaces/${ns}/memcacheds/deployed`,
        );
        expect(stored.spec).toMatchObject({ replicas: 1, memory: '64Mi', threads: 4 });
        const refused = await kubectl(
          ['apply', '-n', ns, '-f', '-'],
          'apiVersion: cache.example.com/v1beta1\nkind: Memcached\nmetadata: {name: tight}\nspec: {replicas: 1, memory: 256Mi, resources: {limits: {memory: 256Mi}}}\n',
        );
        expect(refused.code).toBe(1);
        // kubectl prints the webhook's 422 Invalid as it prints the API server's own field errors.
        expect(refused.stderr).toContain(
          'The Memcached "tight" is invalid: spec.memory: Invalid value: "256Mi": with 32Mi for connections it must fit in resources.limits.memory (256Mi)',
        );
        const deprecated = await kubectl(
          ['apply', '-n', ns, '-f', '-'],
          'apiVersion: cache.example.com/v1alpha1\nkind: Memcached\nmetadata: {name: old}\nspec: {size: 1, extraArgs: [-t, "2"]}\n',
        );
        expect(deprecated).toMatchObject({ code: 0 });
        expect(deprecated.stderr).toContain('Warning: cache.example.com/v1alpha1 Memcached is deprecated');
        expect(deprecated.stderr).toContain(
          "Warning: spec.extraArgs -t override what the spec's own fields set",
        );
        // The manager logs structured lines.
        expect(await operator.log()).toContain('"msg"');
      },
    },
  },
  () => {
    it('renders the cert-manager variant: an Issuer, the serving Certificate, and CA injection where it is needed', async () => {
      const { stdout } = await run('kubectl', ['kustomize', join(root, 'config', 'with-certmanager')]);
      const objects = parseAllDocuments(stdout).map(
        (d) => d.toJS() as { kind: string; metadata: { name: string; annotations?: Record<string, string> } },
      );
      const certificate = objects.find((o) => o.kind === 'Certificate') as unknown as {
        metadata: { name: string; namespace: string };
        spec: { secretName: string; dnsNames: string[] };
      };
      expect(certificate.metadata).toMatchObject({
        name: 'memcached-operator-serving-cert',
        namespace: 'memcached-operator-system',
      });
      expect(certificate.spec.secretName).toBe('webhook-server-cert');
      expect(certificate.spec.dnsNames).toContain(
        'memcached-operator-webhook-service.memcached-operator-system.svc',
      );
      expect(objects.some((o) => o.kind === 'Issuer')).toBe(true);
      const injected = objects
        .filter(
          (o) =>
            o.metadata.annotations?.['cert-manager.io/inject-ca-from'] ===
            'memcached-operator-system/memcached-operator-serving-cert',
        )
        .map((o) => o.kind)
        .sort();
      expect(injected).toEqual([
        'CustomResourceDefinition',
        'MutatingWebhookConfiguration',
        'ValidatingWebhookConfiguration',
      ]);
    });

    it('is not deployed without an image where the cluster records no local registry: one line names --image', async () => {
      // Without kube-public/local-registry-hosting there is nowhere to push an image built here; the record
      // is put back as it was, so later deploys on this cluster use it again (test/deploy-loop.spec.ts).
      const record = await kubectl(
        ['get', 'configmap', '-n', 'kube-public', 'local-registry-hosting', '-o', 'json'],
        '',
      );
      expect(record.code).toBe(0);
      const { metadata, ...rest } = JSON.parse(record.stdout) as {
        metadata: { name: string; namespace: string; annotations?: Record<string, string> };
      };
      const saved = {
        ...rest,
        metadata: { name: metadata.name, namespace: metadata.namespace, annotations: metadata.annotations },
      };
      expect(
        (await kubectl(['delete', 'configmap', '-n', 'kube-public', 'local-registry-hosting'], '')).code,
      ).toBe(0);
      try {
        const missing = await run(process.execPath, [opkit, 'deploy', '--operator', root], {
          env: { ...process.env, KUBECONFIG: inject('opkitKubeconfig') },
        }).catch((e: { code: number; stderr: string }) => e);
        expect(missing).toMatchObject({ code: 1 });
        const stderr = (missing as { stderr: string }).stderr;
        expect(stderr).toMatch(/^opkit: no --image, and the cluster records no local registry/);
        expect(stderr).toContain('--image');
        expect(stderr.trim().split('\n')).toHaveLength(1);
      } finally {
        expect((await kubectl(['create', '-f', '-'], JSON.stringify(saved))).code).toBe(0);
      }
    });
  },
);

/** kubectl against the test cluster with `input` on stdin; a failure resolves with code 1 and its stderr. */
function kubectl(args: string[], input: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      'kubectl',
      args,
      { env: { ...process.env, KUBECONFIG: inject('opkitKubeconfig') } },
      (error, stdout, stderr) => resolve({ code: error ? 1 : 0, stdout, stderr }),
    );
    child.stdin?.end(input);
  });
}
