import { execFile, spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { createServer } from 'node:https';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { envtest, startTestEnvironment, type TestEnvironment } from '../../src/envtest/index.js';
import { readManifestFile } from '../../src/envtest/manifests.js';
import { KubeApiError, KubeRest } from '../../src/kube/rest.js';
import { isComplete } from '../../src/toolchain/build.js';
import { componentDir } from '../../src/toolchain/cache.js';
import { etcdRecipe, kubernetesRecipe } from '../../src/toolchain/recipes.js';

const fixtures = join(import.meta.dirname, 'fixtures');
const crdDirectoryPaths = [join(fixtures, 'config/crd/bases')];
const webhookConfigPaths = [join(fixtures, 'config/webhook/manifests.yaml')];
const CRD = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const VALIDATING = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';

interface ClientConfig {
  url?: string;
  caBundle?: string;
  service?: unknown;
}
interface LiveCrd {
  spec: { conversion?: { strategy: string; webhook?: { clientConfig: ClientConfig } } };
}
interface LiveWebhooks {
  webhooks: { clientConfig: ClientConfig }[];
}

const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** The webhook certificate is for 127.0.0.1 and signed by the CA given to the API server as `caBundle`. */
function expectServedByCa(env: Pick<TestEnvironment, 'webhook'>, caBundle: string | undefined): void {
  const ca = new X509Certificate(Buffer.from(caBundle ?? '', 'base64'));
  const serving = new X509Certificate(readFileSync(join(env.webhook.certDir, 'tls.crt')));
  expect(serving.checkIP('127.0.0.1')).toBe('127.0.0.1');
  expect(serving.verify(ca.publicKey)).toBe(true);
}

/** A webhook server on the environment's port that refuses every object it is asked about. */
async function refusingWebhookServer(
  env: TestEnvironment,
): Promise<{ close(): Promise<void>; paths: string[] }> {
  const paths: string[] = [];
  const server = createServer(
    {
      cert: readFileSync(join(env.webhook.certDir, 'tls.crt')),
      key: readFileSync(join(env.webhook.certDir, 'tls.key')),
    },
    (request, response) => {
      paths.push(request.url ?? '');
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        const review = JSON.parse(body) as { request: { uid: string } };
        response.setHeader('content-type', 'application/json');
        response.end(
          JSON.stringify({
            apiVersion: 'admission.k8s.io/v1',
            kind: 'AdmissionReview',
            response: {
              uid: review.request.uid,
              allowed: false,
              status: { code: 403, message: 'refused by the test webhook' },
            },
          }),
        );
      });
    },
  );
  server.maxConnections = 16;
  await new Promise<void>((resolve) => server.listen(env.webhook.port, env.webhook.host, resolve));
  return { paths, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** The webhook configurations a test environment installed under its run's names. */
async function runConfigurations(rest: KubeRest): Promise<(LiveWebhooks & { metadata: { name: string } })[]> {
  const list = await rest.request<{ items: (LiveWebhooks & { metadata: { name: string } })[] }>(
    'GET',
    VALIDATING,
  );
  return list.items.filter((item) => /-envtest-[0-9a-f]{8}$/.test(item.metadata.name));
}

const crdState = (rest: KubeRest) =>
  rest.request('GET', `${CRD}/widgets.example.test`).then(
    () => 'present',
    (error: unknown) => (error instanceof KubeApiError && error.status === 404 ? 'gone' : String(error)),
  );

/** Runs `work` with KUBECONFIG set to `path`, the existing cluster's. */
async function withKubeconfig<T>(path: string, work: () => Promise<T>): Promise<T> {
  const previous = process.env.KUBECONFIG;
  process.env.KUBECONFIG = path;
  try {
    return await work();
  } finally {
    if (previous === undefined) delete process.env.KUBECONFIG;
    else process.env.KUBECONFIG = previous;
  }
}

const widget = {
  apiVersion: 'example.test/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'default' },
};

describe('the envtest tier', () => {
  it('hands every test file the run’s environment: an API server and the webhook certificate', async () => {
    const env = envtest();
    const rest = new KubeRest(env.kubeConfig);
    try {
      expect((await rest.getText('/readyz')).status).toBe(200);
    } finally {
      rest.close();
    }
    expect(env.usesExistingCluster).toBe(false);
    expect(env.webhook.host).toBe('127.0.0.1');
    expect(existsSync(join(env.webhook.certDir, 'tls.key'))).toBe(true);
  });

  it('starts an API server whose CRDs and webhook configurations call the webhook port, and stop removes it all', async () => {
    const env = await startTestEnvironment({
      crdDirectoryPaths,
      webhookConfigPaths,
      useExistingCluster: false,
    });
    const rest = new KubeRest(env.kubeConfig);
    const apiServerPort = Number(new URL(env.kubeConfig.getCurrentCluster()?.server ?? '').port);
    try {
      const crd = await rest.request<LiveCrd>('GET', `${CRD}/widgets.example.test`);
      // The conversion stanza came from the kubebuilder patch beside `bases`, pointed at the webhook port.
      expect(crd.spec.conversion?.strategy).toBe('Webhook');
      const conversion = crd.spec.conversion?.webhook?.clientConfig;
      expect(conversion?.url).toBe(`https://127.0.0.1:${env.webhook.port}/convert`);
      expect(conversion?.service).toBeUndefined();
      expectServedByCa(env, conversion?.caBundle);
      const validating = await rest.request<LiveWebhooks>('GET', `${VALIDATING}/widgets-validating`);
      const admission = validating.webhooks[0]?.clientConfig;
      expect(admission?.url).toBe(`https://127.0.0.1:${env.webhook.port}/validate-widget`);
      expectServedByCa(env, admission?.caBundle);

      // The API server really calls the port, trusting the certificate in certDir.
      const webhook = await refusingWebhookServer(env);
      try {
        const created = rest.request('POST', '/apis/example.test/v1/namespaces/default/widgets', {
          body: widget,
        });
        await expect(created).rejects.toThrow(/refused by the test webhook/);
        expect(webhook.paths[0]).toMatch(/^\/validate-widget/);
      } finally {
        await webhook.close();
      }
    } finally {
      rest.close();
      await env.stop();
    }
    expect(existsSync(dirname(env.kubeconfigPath))).toBe(false);
    expect(await portOpen(apiServerPort)).toBe(false);
  });

  it("on an existing cluster installs the same under the run's own names, leaves the cluster's objects alone, and stop takes out what it created", async () => {
    const cluster = envtest();
    const rest = new KubeRest(cluster.kubeConfig);
    const before = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'widgets-validating' },
      webhooks: [
        {
          name: 'vwidget.example.test',
          admissionReviewVersions: ['v1'],
          sideEffects: 'None',
          clientConfig: { url: 'https://127.0.0.1:1/kept' },
          rules: [
            {
              apiGroups: ['example.test'],
              apiVersions: ['v1'],
              operations: ['DELETE'],
              resources: ['widgets'],
            },
          ],
        },
      ],
    };
    await rest.request('POST', VALIDATING, { body: before });
    let env: TestEnvironment | undefined;
    try {
      env = await withKubeconfig(cluster.kubeconfigPath, () =>
        startTestEnvironment({ crdDirectoryPaths, webhookConfigPaths, useExistingCluster: true }),
      );
      expect(env.usesExistingCluster).toBe(true);
      expect(env.kubeconfigPath).toBe(cluster.kubeconfigPath);
      const kept = await rest.request<LiveWebhooks>('GET', `${VALIDATING}/widgets-validating`);
      expect(kept.webhooks[0]?.clientConfig.url).toBe('https://127.0.0.1:1/kept');
      const [own] = await runConfigurations(rest);
      expect(own?.metadata.name).toMatch(/^widgets-validating-envtest-[0-9a-f]{8}$/);
      expect(own?.webhooks[0]?.clientConfig.url).toBe(
        `https://127.0.0.1:${env.webhook.port}/validate-widget`,
      );
      await rest.request('GET', `${CRD}/widgets.example.test`);
    } finally {
      await env?.stop();
    }
    try {
      const restored = await rest.request<LiveWebhooks>('GET', `${VALIDATING}/widgets-validating`);
      expect(restored.webhooks[0]?.clientConfig.url).toBe('https://127.0.0.1:1/kept');
      expect(await runConfigurations(rest)).toEqual([]);
      // It created the CRD, so it deleted it; the API server finishes once the CRD's objects are gone (none).
      await expect.poll(() => crdState(rest), { timeout: 20_000 }).toBe('gone');
    } finally {
      await rest.request('DELETE', `${VALIDATING}/widgets-validating`).catch(() => {});
      rest.close();
    }
  });

  it('on an existing cluster refuses a CRD of the same name that differs, unless told to replace it', async () => {
    const cluster = envtest();
    const rest = new KubeRest(cluster.kubeConfig);
    const theirs = readManifestFile(join(crdDirectoryPaths[0] ?? '', 'example.test_widgets.yaml'))[0];
    await rest.request('POST', CRD, { body: theirs });
    try {
      await expect(
        withKubeconfig(cluster.kubeconfigPath, () =>
          startTestEnvironment({ crdDirectoryPaths, webhookConfigPaths, useExistingCluster: true }),
        ),
      ).rejects.toThrow(
        'CRD widgets.example.test exists in the cluster and differs from the one under test: set OPKIT_ENVTEST_REPLACE_CRDS=true',
      );
      const untouched = await rest.request<LiveCrd>('GET', `${CRD}/widgets.example.test`);
      expect(untouched.spec.conversion?.strategy).toBe('None');
      expect(await runConfigurations(rest)).toEqual([]);

      const env = await withKubeconfig(cluster.kubeconfigPath, () =>
        startTestEnvironment({
          crdDirectoryPaths,
          webhookConfigPaths,
          useExistingCluster: true,
          replaceExistingCrds: true,
        }),
      );
      try {
        const replaced = await rest.request<LiveCrd>('GET', `${CRD}/widgets.example.test`);
        expect(replaced.spec.conversion?.webhook?.clientConfig.url).toBe(
          `https://127.0.0.1:${env.webhook.port}/convert`,
        );
      } finally {
        await env.stop();
      }
      const restored = await rest.request<LiveCrd>('GET', `${CRD}/widgets.example.test`);
      expect(restored.spec.conversion?.strategy).toBe('None');
    } finally {
      await rest.request('DELETE', `${CRD}/widgets.example.test`).catch(() => {});
      await expect.poll(() => crdState(rest), { timeout: 20_000 }).toBe('gone');
      rest.close();
    }
  });

  it('on an existing cluster, killed by SIGTERM, takes out what it installed before it ends', async () => {
    const cluster = envtest();
    const rest = new KubeRest(cluster.kubeConfig);
    const script = join(import.meta.dirname, 'support', 'existing-until-signal.ts');
    const child = spawn(process.execPath, ['--conditions=@opkit/source', '--import', 'tsx', script], {
      cwd: join(import.meta.dirname, '../..'),
      env: { ...process.env, KUBECONFIG: cluster.kubeconfigPath },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const ready = await new Promise<string>((resolve, reject) => {
        let output = '';
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          if (output.includes('\n')) resolve(output.trim());
        });
        child.once('exit', (code) => reject(new Error(`the environment exited with ${code}: ${output}`)));
      });
      expect(ready).toBe('ready');
      expect(await runConfigurations(rest)).toHaveLength(1);
      const exited = new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
      child.kill('SIGTERM');
      expect(await exited).toBe('SIGTERM');
      expect(await runConfigurations(rest)).toEqual([]);
      await expect.poll(() => crdState(rest), { timeout: 20_000 }).toBe('gone');
    } finally {
      child.kill('SIGKILL');
      rest.close();
    }
  });

  const root = process.getuid?.() === 0;
  it.skipIf(!root)(
    'starts as a normal user: no root, with the cached binaries in a cache of its own (skipped unless root, which switching users needs)',
    async () => {
      expect(isComplete(etcdRecipe) && isComplete(kubernetesRecipe)).toBe(true);
      // A world-readable cache holding hard links of the two components, and a HOME and TMPDIR of nobody's.
      const scratch = mkdtempSync(join(tmpdir(), 'opkit-envtest-nobody-'));
      chmodSync(scratch, 0o755);
      try {
        const cache = join(scratch, 'cache');
        for (const recipe of [etcdRecipe, kubernetesRecipe]) {
          const target = join(cache, 'bin', `${recipe.name}-v${recipe.version}`);
          mkdirSync(target, { recursive: true });
          for (const file of recipe.files)
            linkSync(join(componentDir(recipe.name, recipe.version), file), join(target, file));
        }
        const home = join(scratch, 'home');
        mkdirSync(home);
        chmodSync(home, 0o700);
        chownSync(home, 65534, 65534);
        const script = join(import.meta.dirname, 'support', 'start-as-user.ts');
        const { stdout } = await promisify(execFile)(
          'setpriv',
          [
            '--reuid=65534',
            '--regid=65534',
            '--clear-groups',
            '--',
            process.execPath,
            '--conditions=@opkit/source',
            '--import',
            'tsx',
            script,
          ],
          {
            cwd: join(import.meta.dirname, '../..'),
            env: {
              PATH: process.env.PATH ?? '/usr/bin:/bin',
              HOME: home,
              TMPDIR: home,
              OPKIT_CACHE_DIR: cache,
            },
            timeout: 120_000,
          },
        );
        const report = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as {
          uid?: number;
          readyz?: number;
          tempDirRemoved?: boolean;
        };
        expect(report).toEqual({ uid: 65534, readyz: 200, tempDirRemoved: true });
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }
    },
    150_000,
  );
});
