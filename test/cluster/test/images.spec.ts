import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { readLayout } from '@opkit/oci';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltImage, ensureClusterImages, pushClusterImages } from '../src/images/cluster-images.js';
import { clusterImageDefinitions, type ImageDefinition } from '../src/images/definitions.js';
import { hostAptSources, hostDebianSuite } from '../src/images/host-apt.js';
import { buildDefinitionImage } from '../src/images/image-build.js';
import { localMirrorReference } from '../src/images/mirror.js';
import { findNodeBinaries } from '../src/images/node-package.js';
import {
  ARCHITECTURES,
  elfMachine,
  hostArchitecture,
  IMAGE_ARCHITECTURES,
  type ImageArchitecture,
} from '../src/images/platforms.js';
import { type ImageRegistry, startImageRegistry } from '../src/images/registry.js';
import { findGo, goEnvironment } from '../src/toolchain/go.js';

const run = promisify(execFile);
const pauseSource = join(import.meta.dirname, '..', 'src', 'node', 'pause', 'main.go');

/** The blob file of the one layer of the single-platform image in `layout`. */
async function layerFile(layout: string): Promise<string> {
  const [layer] = (await readLayout(layout)).manifest.layers;
  if (layer === undefined) throw new Error(`no layer in ${layout}`);
  return join(layout, 'blobs', 'sha256', layer.digest.replace('sha256:', ''));
}

/** Why this file cannot run here, or `undefined`. */
function skipReason(): string | undefined {
  if (process.getuid?.() !== 0) return 'needs root (chroot, and mmdebstrap writes a root filesystem)';
  const tools: Array<[string, string]> = [
    ['/usr/bin/mmdebstrap', 'mmdebstrap'],
    ['/usr/bin/docker-registry', 'docker-registry'],
    ['/usr/bin/skopeo', 'skopeo'],
    ['/usr/bin/umoci', 'umoci'],
  ];
  const missing = tools.filter(([file]) => !existsSync(file)).map(([, pkg]) => pkg);
  if (missing.length > 0) return `missing tools: apt-get install ${missing.join(' ')}`;
  if (!existsSync(pauseSource)) return `no pause sources at ${pauseSource}`;
  try {
    findGo();
  } catch (err) {
    return `no Go to build pause: ${err instanceof Error ? err.message : String(err)}`;
  }
  return undefined;
}

const reason = skipReason();
const progress = (line: string): void => {
  if (process.env.OPKIT_TEST_VERBOSE) process.stderr.write(`[images] ${line}\n`);
};

describe.skipIf(reason !== undefined)(`cluster images${reason ? ` (skipped: ${reason})` : ''}`, () => {
  let work: string;
  let pauseBinary: string;
  let definitions: ImageDefinition[];
  let images: BuiltImage[];
  let registry: ImageRegistry | undefined;
  const image = (name: string): BuiltImage => {
    const found = images.find((i) => i.name === name);
    if (found === undefined) throw new Error(`no image ${name}`);
    return found;
  };
  /** The layout of one platform's image of `name` (this machine's by default). */
  const platformLayout = (name: string, architecture: ImageArchitecture = hostArchitecture()): string => {
    const found = image(name).platforms.find((p) => p.architecture === architecture);
    if (found === undefined) throw new Error(`no ${architecture} image of ${name}`);
    return found.layout;
  };

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'opkit-images-'));
    // The sandbox's pause program, built the way the cluster builds it (static, trimmed paths).
    const goDir = join(work, 'pause-src');
    await mkdir(goDir);
    await copyFile(pauseSource, join(goDir, 'main.go'));
    const go = findGo().go;
    await run(go, ['mod', 'init', 'local/pause'], { cwd: goDir, env: goEnvironment() });
    pauseBinary = join(work, 'pause');
    await run(go, ['build', '-trimpath', '-ldflags', '-s -w', '-o', pauseBinary, '.'], {
      cwd: goDir,
      env: goEnvironment(),
    });
    definitions = clusterImageDefinitions({
      pauseBinary,
      nodes: await findNodeBinaries(IMAGE_ARCHITECTURES),
    });
    images = await ensureClusterImages({ pauseBinary, definitions, onProgress: progress });
  }, 600_000);

  afterAll(async () => {
    await registry?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('builds every image under its upstream names, tagged with the versions inside', () => {
    expect(images.map((i) => i.name)).toEqual(['pause', 'busybox', 'memcached', 'redis', 'node']);
    expect(image('pause').references).toEqual(['registry.k8s.io/pause:3.10.1']);
    expect(image('memcached').references).toEqual([
      expect.stringMatching(/^docker\.io\/library\/memcached:1\.6\.\d+$/),
      'docker.io/library/memcached:1.6',
    ]);
    expect(image('redis').references).toEqual([
      expect.stringMatching(/^docker\.io\/library\/redis:7\.0\.\d+$/),
      'docker.io/library/redis:7.0',
    ]);
    expect(image('busybox').references).toEqual([
      expect.stringMatching(/^docker\.io\/library\/busybox:1\.\d+\.\d+$/),
      expect.stringMatching(/^docker\.io\/library\/busybox:1\.\d+$/),
    ]);
    expect(image('node').references).toEqual([
      expect.stringMatching(/^docker\.io\/opkit\/node:24\.\d+\.\d+$/),
      'docker.io/opkit/node:24',
    ]);
  });

  it('answers from the cache the second time', async () => {
    const again = await ensureClusterImages({ pauseBinary, definitions });
    expect(again.map((i) => [i.name, i.digest, i.buildSeconds])).toEqual(
      images.map((i) => [i.name, i.digest, 0]),
    );
  });

  it('writes the runtime settings into each config', async () => {
    const config = async (name: string) => (await readLayout(platformLayout(name))).config.config;
    expect(await config('memcached')).toMatchObject({
      User: '11211:11211',
      Cmd: ['memcached'],
      ExposedPorts: { '11211/tcp': {} },
    });
    expect((await config('memcached'))?.Entrypoint).toBeUndefined();
    expect(await config('redis')).toMatchObject({
      User: '999:999',
      Cmd: ['redis-server'],
      WorkingDir: '/data',
      ExposedPorts: { '6379/tcp': {} },
    });
    expect(await config('busybox')).toMatchObject({ Cmd: ['sh'] });
    expect((await config('busybox'))?.User).toBeUndefined();
    expect(await config('pause')).toMatchObject({ User: '65535:65535', Entrypoint: ['/pause'] });
    const node = await config('node');
    expect(node).toMatchObject({
      User: '65532:65532',
      Entrypoint: ['/usr/local/bin/node'],
      Env: ['PATH=/usr/local/bin:/usr/bin:/bin'],
    });
    expect(node?.Labels?.['org.opencontainers.image.description']).toMatch(/libstdc\+\+6 \S+/);
  });

  it('builds the Node.js base and the operands as one image index for every platform, the rest for this machine', async () => {
    const platforms = Object.fromEntries(images.map((i) => [i.name, i.platforms.map((p) => p.architecture)]));
    expect(platforms).toEqual({
      pause: [hostArchitecture()],
      busybox: [hostArchitecture()],
      memcached: IMAGE_ARCHITECTURES,
      redis: IMAGE_ARCHITECTURES,
      node: IMAGE_ARCHITECTURES,
    });
    for (const name of ['memcached', 'redis', 'node']) {
      const built = image(name);
      const { stdout } = await run('skopeo', [
        'inspect',
        '--raw',
        `oci:${built.layout}:${built.references[0]}`,
      ]);
      const index = JSON.parse(stdout) as {
        mediaType: string;
        manifests: { digest: string; platform: unknown }[];
      };
      expect(index.mediaType, name).toBe('application/vnd.oci.image.index.v1+json');
      expect(index.manifests, name).toEqual(
        built.platforms.map((p) =>
          expect.objectContaining({
            digest: p.digest,
            platform: { architecture: p.architecture, os: 'linux' },
          }),
        ),
      );
      for (const platform of built.platforms) {
        expect(
          (await readLayout(platform.layout)).config.architecture,
          `${name} ${platform.architecture}`,
        ).toBe(platform.architecture);
      }
    }
  });

  it("puts each platform's own Node.js executable into the node image", async () => {
    for (const architecture of IMAGE_ARCHITECTURES) {
      const dir = join(work, 'node-files', architecture);
      await mkdir(dir, { recursive: true });
      await run('tar', [
        '-xzf',
        await layerFile(platformLayout('node', architecture)),
        '-C',
        dir,
        'usr/local/bin/node',
      ]);
      const header = (await readFile(join(dir, 'usr/local/bin/node'))).subarray(0, 20);
      expect(elfMachine(header), architecture).toBe(ARCHITECTURES[architecture].elfMachine);
    }
  });

  it('gives the same digest when a foreign platform is built again', async () => {
    const definition = definitions.find((d) => d.name === 'memcached');
    if (definition === undefined) throw new Error('no memcached definition');
    const workDir = join(work, 'rebuild-memcached-arm64');
    const built = await buildDefinitionImage(definition, {
      suite: hostDebianSuite(),
      sources: hostAptSources(),
      architecture: 'arm64',
      workDir,
    });
    await rm(workDir, { recursive: true, force: true });
    expect(built.image.config.architecture).toBe('arm64');
    expect(built.image.digest).toBe(
      image('memcached').platforms.find((p) => p.architecture === 'arm64')?.digest,
    );
  }, 180_000);

  it('gives the same digest when a definition is built again', async () => {
    for (const name of ['pause', 'busybox']) {
      const definition = definitions.find((d) => d.name === name)!;
      const digests: string[] = [];
      for (const attempt of [1, 2]) {
        const workDir = join(work, `rebuild-${name}-${attempt}`);
        const built = await buildDefinitionImage(definition, {
          suite: hostDebianSuite(),
          sources: hostAptSources(),
          workDir,
        });
        digests.push(built.image.digest);
        await rm(workDir, { recursive: true, force: true });
      }
      expect(digests[1], name).toBe(digests[0]);
      expect(digests[0], `${name} as cached`).toBe(image(name).digest);
    }
  }, 120_000);

  it('pushes every reference into a local registry as its mirror path', async () => {
    registry = await startImageRegistry(join(work, 'registry'), join(work, 'registry.log'));
    const lines: string[] = [];
    await pushClusterImages(images, registry.host, (line) => lines.push(line));
    expect(lines).toHaveLength(images.flatMap((i) => i.references).length);
    const { stdout } = await run('skopeo', [
      'inspect',
      '--raw',
      '--tls-verify=false',
      `docker://${registry.host}/library/memcached:1.6`,
    ]);
    // An image index, whose platforms are the cached images.
    expect(
      (JSON.parse(stdout) as { manifests: { digest: string }[] }).manifests.map((m) => m.digest),
    ).toEqual(image('memcached').platforms.map((p) => p.digest));
    for (const built of images) {
      for (const reference of built.references) {
        const local = localMirrorReference(reference, registry.host);
        const inspected = await run('skopeo', [
          'inspect',
          '--tls-verify=false',
          '--format',
          '{{.Digest}}',
          `docker://${local}`,
        ]);
        expect(inspected.stdout.trim(), local).toBe(built.digest);
      }
    }
    // Pushing again uploads nothing.
    const repeat: string[] = [];
    await pushClusterImages(images, registry.host, (line) => repeat.push(line));
    expect(repeat.filter((line) => line.includes('uploaded'))).toEqual([]);
  }, 120_000);

  it('runs the servers and node from the unpacked images', async () => {
    const unpack = async (name: string): Promise<string> => {
      const built = image(name);
      const dir = join(work, 'rootfs', name);
      await mkdir(join(work, 'rootfs'), { recursive: true });
      await run('umoci', ['raw', 'unpack', '--image', `${platformLayout(name)}:${built.references[0]}`, dir]);
      return dir;
    };
    const version = (name: string) => image(name).references[0]!.split(':').pop()!;
    const memcached = await unpack('memcached');
    expect(
      (await run('chroot', ['--userspec=11211:11211', memcached, 'memcached', '-V'])).stdout.trim(),
    ).toBe(`memcached ${version('memcached')}`);
    const redis = await unpack('redis');
    expect(
      (await run('chroot', ['--userspec=999:999', redis, 'redis-server', '--version'])).stdout,
    ).toContain(`v=${version('redis')}`);
    expect((await run('chroot', [redis, 'redis-cli', '--version'])).stdout).toContain(version('redis'));
    const node = await unpack('node');
    const out = await run('chroot', [
      '--userspec=65532:65532',
      node,
      '/usr/local/bin/node',
      '-e',
      'console.log(process.version, require("node:os").userInfo().username)',
    ]);
    expect(out.stdout.trim()).toBe(`v${version('node')} nonroot`);
    const busybox = await unpack('busybox');
    const sh = await run('chroot', [
      busybox,
      '/bin/sh',
      '-c',
      'echo ok && id -u && command -v nc httpd wget',
    ]);
    expect(sh.stdout.split('\n').slice(0, 2)).toEqual(['ok', '0']);
  }, 120_000);
});
