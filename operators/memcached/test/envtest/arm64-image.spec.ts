// The operator's arm64 image really runs: its root filesystem, unpacked from the multi-platform image that
// `opkit image build` makes on the test world's Node.js base, runs under QEMU's user-mode emulator (called
// directly on that root, no binfmt registration) and reconciles a Memcached against the envtest API server.
// No node runs here, so the Deployment it writes never gets pods.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { opkitScript } from '@opkit/test-cluster';
import { envtest } from '@opkit/test-cluster/envtest';
import {
  ARCHITECTURES,
  clusterImageDefinitions,
  elfMachine,
  ensureClusterImages,
  findNodeBinaries,
  IMAGE_ARCHITECTURES,
} from '@opkit/test-cluster/images';
import { eventually, KubeRest } from '@opkit/test-cluster/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, MEMCACHED_IMAGE, memcached } from '../support/operator.js';

const run = promisify(execFile);
const operatorDir = new URL('../..', import.meta.url).pathname;
const QEMU = `/usr/bin/qemu-${ARCHITECTURES.arm64.qemu}-static`;
const namespace = `arm64-${randomBytes(4).toString('hex')}`;

interface Descriptor {
  readonly digest: string;
  readonly platform?: { readonly architecture: string };
  readonly annotations?: Record<string, string>;
}

let work: string;
let rootfs: string;
/** The arm64 image's entrypoint with its absolute paths moved under the unpacked root. */
let entrypoint: string[];
let indexPlatforms: string[];
/** The operator image's layout and tag, and the memcached operand image's layout and tag. */
let operatorImage: { layout: string; tag: string };
let operandImage: { layout: string; tag: string };
const timings: Record<string, number> = {};

/** Reads a blob of an OCI layout as JSON. */
async function blob<T>(layout: string, digest: string): Promise<T> {
  return JSON.parse(
    await readFile(join(layout, 'blobs', 'sha256', digest.replace('sha256:', '')), 'utf8'),
  ) as T;
}

async function timed<T>(name: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    timings[name] = Math.round(performance.now() - started);
  }
}

/** The arm64 entrypoint with `args`, under the emulator with the image's root as its library prefix. */
function emulated(args: readonly string[]): [string, string[]] {
  return [QEMU, ['-L', rootfs, ...entrypoint, ...args]];
}

describe.skipIf(!existsSync(QEMU))(
  `the memcached operator's arm64 image under user-mode emulation${existsSync(QEMU) ? '' : ` (skipped: no ${QEMU}: apt-get install qemu-user-static)`}`,
  () => {
    beforeAll(async () => {
      work = await mkdtemp(join(tmpdir(), 'opkit-arm64-'));
      // The Node.js base for every platform (cached after the first build), then the operator on it.
      const images = await timed('base images', async () =>
        ensureClusterImages({
          pauseBinary: '',
          definitions: clusterImageDefinitions({
            pauseBinary: '',
            nodes: await findNodeBinaries(IMAGE_ARCHITECTURES),
          }).filter((d) => d.name === 'node' || d.name === 'memcached'),
        }),
      );
      const base = images.find((image) => image.name === 'node');
      const operand = images.find((image) => image.name === 'memcached');
      if (base === undefined || operand === undefined) throw new Error('no node or memcached image');
      const operandTag = operand.references.find((r) => r === MEMCACHED_IMAGE) ?? operand.references[0] ?? '';
      operandImage = { layout: operand.layout, tag: operandTag };
      const layout = join(work, 'layout');
      const tag = 'registry.example/memcached-operator:arm64-test';
      await timed('operator image', () =>
        run(
          process.execPath,
          [
            opkitScript(),
            'image',
            'build',
            '--operator',
            operatorDir,
            '--base',
            `${base.layout}:${base.references[0]}`,
            '--layout',
            layout,
            '--tag',
            tag,
          ],
          { env: { ...process.env, OPKIT_FROM_SOURCE: '1' }, timeout: 120_000 },
        ),
      );
      // The layout's tag names the index; its arm64 manifest names the layers to unpack, base first.
      const layoutIndex = JSON.parse(await readFile(join(layout, 'index.json'), 'utf8')) as {
        manifests: Descriptor[];
      };
      const tagged = layoutIndex.manifests.find(
        (m) => m.annotations?.['org.opencontainers.image.ref.name'] === tag,
      );
      if (tagged === undefined) throw new Error(`no ${tag} in the layout`);
      operatorImage = { layout, tag };
      const index = await blob<{ manifests: Descriptor[] }>(layout, tagged.digest);
      indexPlatforms = index.manifests.map((m) => m.platform?.architecture ?? 'none');
      const arm64 = index.manifests.find((m) => m.platform?.architecture === 'arm64');
      if (arm64 === undefined) throw new Error('the operator image has no arm64 platform');
      const manifest = await blob<{ config: Descriptor; layers: Descriptor[] }>(layout, arm64.digest);
      const config = await blob<{ architecture: string; config: { Entrypoint: string[] } }>(
        layout,
        manifest.config.digest,
      );
      expect(config.architecture).toBe('arm64');
      rootfs = join(work, 'rootfs');
      await mkdir(rootfs);
      await timed('unpack', async () => {
        for (const layer of manifest.layers) {
          const file = join(layout, 'blobs', 'sha256', layer.digest.replace('sha256:', ''));
          await run('tar', ['-xzf', file, '-C', rootfs, '--no-same-owner']);
        }
      });
      entrypoint = config.config.Entrypoint.map((arg) =>
        arg.startsWith('/') && existsSync(join(rootfs, arg)) ? join(rootfs, arg) : arg,
      );
      await new KubeRest(envtest().kubeConfig).request('POST', '/api/v1/namespaces', {
        body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
      });
    }, 300_000);

    afterAll(async () => {
      console.info(`arm64 image under emulation (ms): ${JSON.stringify(timings)}`);
      if (work !== undefined) await rm(work, { recursive: true, force: true });
    });

    it('is one image index for amd64 and arm64, whose arm64 node is an aarch64 executable', async () => {
      expect(indexPlatforms.sort()).toEqual([...IMAGE_ARCHITECTURES].sort());
      const node = entrypoint[0] ?? '';
      expect(node).toBe(join(rootfs, 'usr/local/bin/node'));
      const { stdout } = await run('file', ['-b', node]);
      expect(stdout).toMatch(/ELF 64-bit LSB .*ARM aarch64/);
      const file = await open(node, 'r');
      const header = Buffer.alloc(20);
      await file.read(header, 0, 20, 0);
      await file.close();
      expect(elfMachine(header)).toBe(ARCHITECTURES.arm64.elfMachine);
    });

    it("is what the released bundle's platform labels say, as the multiarch check reads its images", async () => {
      // The bundle names the operator by its release reference and the operand by its own: each read from the
      // layout built above.
      const bundle = join(operatorDir, '..', '..', 'bundles', 'memcached-operator', '0.3.0');
      const { stdout } = await run(process.execPath, [
        opkitScript(),
        ...['bundle', 'validate', bundle, '--select-optional', 'name=multiarch', '-o', 'json-alpha1'],
        ...[
          '--image-layout',
          `registry.example/memcached-operator:0.3.0=${operatorImage.layout}:${operatorImage.tag}`,
        ],
        ...['--image-layout', `${MEMCACHED_IMAGE}=${operandImage.layout}:${operandImage.tag}`],
      ]);
      expect(JSON.parse(stdout)).toEqual({ passed: true, outputs: null });
    });

    it('prints its help', async () => {
      const [command, args] = emulated(['--help']);
      const { stdout } = await timed('--help', () => run(command, args, { timeout: 60_000 }));
      expect(stdout).toContain('Usage: memcached-operator');
      expect(stdout).toContain('--webhook-port');
    });

    it('reconciles a Memcached against the API server: its Deployment, owned by it', async () => {
      const env = envtest();
      const rest = new KubeRest(env.kubeConfig);
      const [command, args] = emulated([
        '--kubeconfig',
        env.kubeconfigPath,
        '--metrics-bind-address',
        '0',
        '--health-probe-bind-address',
        '127.0.0.1:0',
        '--webhook-port',
        String(env.webhook.port),
        '--webhook-cert-path',
        env.webhook.certDir,
        '--log-level',
        'warn',
      ]);
      const started = performance.now();
      const operator = spawn(command, args, {
        env: { ...process.env, POD_NAMESPACE: namespace, RELATED_IMAGE_MEMCACHED: MEMCACHED_IMAGE },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      operator.stderr.on('data', (chunk: Buffer) => {
        stderr = (stderr + chunk.toString('utf8')).slice(-4000);
      });
      const exited = new Promise<number | null>((resolve) => operator.once('exit', resolve));
      try {
        // The defaulting and validating webhooks answer from the emulated operator: creating waits for it.
        await eventually(
          'the Memcached created through the emulated webhooks',
          async () => {
            if (operator.exitCode !== null) throw new Error(`the operator exited: ${stderr}`);
            await rest.request('POST', `/apis/cache.example.com/v1beta1/namespaces/${namespace}/memcacheds`, {
              body: memcached('sample', namespace, { replicas: 2 }),
            });
            return true;
          },
          { timeoutMs: 60_000 },
        );
        const deployment = await eventually(
          'the Deployment',
          () => rest.request<Deployment>('GET', `/apis/apps/v1/namespaces/${namespace}/deployments/sample`),
          { timeoutMs: 60_000 },
        );
        timings.reconcile = Math.round(performance.now() - started);
        expect(deployment.spec.replicas).toBe(2);
        expect(deployment.spec.template.spec.containers[0]?.image).toBe(MEMCACHED_IMAGE);
        expect(deployment.metadata.ownerReferences).toEqual([
          expect.objectContaining({ kind: 'Memcached', name: 'sample', controller: true }),
        ]);
      } finally {
        operator.kill('SIGTERM');
        await exited;
      }
    });
  },
);
