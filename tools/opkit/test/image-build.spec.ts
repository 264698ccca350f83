import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { OPERATOR_NODE_OPTIONS } from '@opkit/controller-runtime/manager';
import { buildImage, buildImageIndex, layerFromEntries, type OciImage, writeLayout } from '@opkit/oci';
import { type ImageRegistry, startImageRegistry } from '@opkit/test-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorProjectDir } from './support/operator-project.js';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..', '..');
const opkit = join(root, 'tools', 'opkit', 'bin', 'opkit.js');
const scratch = mkdtempSync(join(tmpdir(), 'opkit-image-'));
const tools = ['skopeo', 'docker-registry'].every(
  (tool) => spawnSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' }).status === 0,
);
const tag = 'memcached-operator:dev';

/** Runs opkit in the repository root; resolves with its exit code and output (never rejects). */
async function cli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [opkit, ...args], {
      cwd: root,
      env: { ...process.env, SOURCE_DATE_EPOCH: '', ...env },
      maxBuffer: 32 << 20,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

async function skopeo(...args: string[]): Promise<unknown> {
  return JSON.parse((await run('skopeo', args, { maxBuffer: 32 << 20 })).stdout);
}

/** The tar entries of a gzip layer blob: path → content. */
function untar(gz: Uint8Array): Map<string, Buffer> {
  const tar = gunzipSync(gz);
  const files = new Map<string, Buffer>();
  for (let offset = 0; offset + 512 <= tar.length; ) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break;
    const name = header.subarray(0, 100).toString('utf8').replace(/\0.*$/s, '');
    const size = Number.parseInt(header.subarray(124, 136).toString('ascii').replace(/\0.*$/s, '').trim(), 8);
    files.set(name, tar.subarray(offset + 512, offset + 512 + size));
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

const blob = (layout: string, digest: string): Buffer =>
  readFileSync(join(layout, 'blobs', 'sha256', digest.slice('sha256:'.length)));
const digestOf = (stdout: string): string | undefined => /^digest (sha256:[0-9a-f]{64})$/m.exec(stdout)?.[1];

interface Index {
  mediaType: string;
  manifests: Array<{ digest: string; platform: { os: string; architecture: string } }>;
}
interface Manifest {
  layers: Array<{ mediaType: string; digest: string; size: number }>;
  config: { digest: string };
}
interface Config {
  architecture: string;
  created: string;
  config: {
    User: string;
    Entrypoint: string[];
    Cmd?: string[];
    WorkingDir: string;
    Labels: Record<string, string>;
  };
}

// Two tiny "Node" bases, one per platform, each with its own layer, in one image index.
const bases: OciImage[] = ['amd64', 'arm64'].map((architecture) =>
  buildImage([layerFromEntries([{ path: `etc/base-${architecture}`, content: `${architecture}\n` }])], {
    architecture,
    entrypoint: ['/usr/local/bin/node'],
    env: ['PATH=/usr/local/bin:/usr/bin:/bin'],
  }),
);
const baseLayout = join(scratch, 'base');

beforeAll(async () => {
  await writeLayout(baseLayout, [{ image: buildImageIndex(bases), tag: 'node:24' }]);
  const windows = buildImage([layerFromEntries([{ path: 'x', content: 'x' }])], { os: 'windows' });
  await writeLayout(join(scratch, 'windows'), [{ image: buildImageIndex([windows]), tag: 'w' }]);
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe.skipIf(!tools)('opkit image build', () => {
  const out = join(scratch, 'a');
  let built: { code: number; stdout: string; stderr: string };
  let digest: string | undefined;
  let registry: ImageRegistry | undefined;

  beforeAll(async () => {
    const started = performance.now();
    built = await cli([
      'image',
      'build',
      '--operator',
      'operators/memcached',
      '--base',
      `${baseLayout}:node:24`,
      '--layout',
      out,
      '--tag',
      tag,
    ]);
    process.stdout.write(`opkit image build took ${Math.round(performance.now() - started)} ms\n`);
    digest = digestOf(built.stdout);
  });

  afterAll(async () => registry?.stop());

  it('reports progress and the digests, and builds the same digest twice', async () => {
    expect(built, built.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(built.stdout).toMatch(/^bundling operators\/memcached\/src\/main\.ts to \/app\/main\.mjs$/m);
    expect(built.stdout).toMatch(/^base .*: image index sha256:\S+ \(linux\/amd64, linux\/arm64\)$/m);
    expect(built.stdout).toMatch(/^layer sha256:\S+ \/app\/main\.mjs \(.* gzip\)$/m);
    expect(built.stdout).toMatch(/^ {2}linux\/amd64 sha256:[0-9a-f]{64}$/m);
    expect(built.stdout).toMatch(/^ {2}linux\/arm64 sha256:[0-9a-f]{64}$/m);
    const again = await cli([
      'image',
      'build',
      '--operator',
      'operators/memcached',
      '--base',
      `${baseLayout}:node:24`,
      '--layout',
      join(scratch, 'b'),
      '--tag',
      tag,
    ]);
    expect(again.code).toBe(0);
    expect(digestOf(again.stdout)).toBe(digest);
    expect(readFileSync(join(scratch, 'b', 'index.json'))).toEqual(readFileSync(join(out, 'index.json')));
  });

  it('writes an index skopeo reads, with one image per platform of the base', async () => {
    const index = (await skopeo('inspect', '--raw', `oci:${out}:${tag}`)) as Index;
    expect(index.mediaType).toBe('application/vnd.oci.image.index.v1+json');
    expect(index.manifests.map((m) => `${m.platform.os}/${m.platform.architecture}`)).toEqual([
      'linux/amd64',
      'linux/arm64',
    ]);
    const appLayers = new Set<string>();
    for (const [i, entry] of index.manifests.entries()) {
      const arch = entry.platform.architecture;
      const manifest = JSON.parse(blob(out, entry.digest).toString()) as Manifest;
      const config = (await skopeo(
        '--override-arch',
        arch,
        'inspect',
        '--config',
        `oci:${out}:${tag}`,
      )) as Config;
      expect(config.architecture).toBe(arch);
      // A Deployment's args replace Cmd: there must be none, so they reach the operator.
      expect(config.config.Cmd).toBeUndefined();
      expect(config.created).toBe('1970-01-01T00:00:00Z');
      expect(config.config).toMatchObject({
        User: '65532:65532',
        Entrypoint: ['/usr/local/bin/node', ...OPERATOR_NODE_OPTIONS, '/app/main.mjs'],
        WorkingDir: '/app',
        Labels: {
          'org.opencontainers.image.title': 'memcached-operator',
          'org.opencontainers.image.version': JSON.parse(
            readFileSync(join(operatorProjectDir('@opkit/memcached-operator'), 'package.json'), 'utf8'),
          ).version,
          'org.opencontainers.image.licenses': 'Apache-2.0',
        },
      });
      const revision = config.config.Labels['org.opencontainers.image.revision'];
      if (revision !== undefined) expect(revision).toMatch(/^[0-9a-f]{40}$/);
      // The base layer is kept as it is; the app layer comes on top.
      expect(manifest.layers[0]).toEqual(bases[i]!.layers[0]!.descriptor);
      expect(manifest.layers).toHaveLength(2);
      appLayers.add(manifest.layers[1]!.digest);
    }
    expect(appLayers.size).toBe(1);
  });

  it('puts a bundle in /app/main.mjs that runs on plain Node', async () => {
    const index = JSON.parse(readFileSync(join(out, 'index.json'), 'utf8')) as Index;
    const top = JSON.parse(blob(out, index.manifests[0]!.digest).toString()) as Index;
    const manifest = JSON.parse(blob(out, top.manifests[0]!.digest).toString()) as Manifest;
    const files = untar(blob(out, manifest.layers[1]!.digest));
    expect([...files.keys()]).toEqual(['app/', 'app/main.mjs']);
    const main = join(scratch, 'extracted-main.mjs');
    writeFileSync(main, files.get('app/main.mjs')!);
    const { stdout } = await run(process.execPath, [main, '--help'], { cwd: scratch });
    expect(stdout).toContain('Usage: memcached-operator');
    expect(stdout).toContain('--health-probe-bind-address');
  });

  it('honours SOURCE_DATE_EPOCH', async () => {
    const dated = join(scratch, 'dated');
    const result = await cli(
      [
        'image',
        'build',
        '--operator',
        'operators/memcached',
        '--base',
        `${baseLayout}:node:24`,
        '--layout',
        dated,
        '--tag',
        tag,
        '--platform',
        'linux/arm64',
      ],
      { SOURCE_DATE_EPOCH: '1700000000' },
    );
    expect(result.code, result.stderr).toBe(0);
    const config = (await skopeo(
      '--override-arch',
      'arm64',
      'inspect',
      '--config',
      `oci:${dated}:${tag}`,
    )) as Config;
    expect(config.created).toBe('2023-11-14T22:13:20Z');
    const index = (await skopeo('inspect', '--raw', `oci:${dated}:${tag}`)) as Index;
    expect(index.manifests.map((m) => m.platform.architecture)).toEqual(['arm64']);
  });

  it('pushes the index with every image, and skopeo lists both platforms', async () => {
    registry = await startImageRegistry(join(scratch, 'registry'));
    const ref = `${registry.host}/memcached-operator:dev`;
    const pushed = await cli(['image', 'push', `${out}:${tag}`, '--image', ref, '--plain-http']);
    expect(pushed, pushed.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(pushed.stdout).toContain(`pushed ${ref}@${digest}`);
    expect(pushed.stdout).toMatch(/^ {2}sha256:[0-9a-f]{64} upload \d+ bytes$/m);
    expect(pushed.stdout).toMatch(/^ {2}linux\/arm64 sha256:[0-9a-f]{64}$/m);
    const remote = (await skopeo('inspect', '--raw', '--tls-verify=false', `docker://${ref}`)) as Index;
    expect(remote.manifests.map((m) => `${m.platform.os}/${m.platform.architecture}`)).toEqual([
      'linux/amd64',
      'linux/arm64',
    ]);
    const arm = (await skopeo(
      '--override-arch',
      'arm64',
      'inspect',
      '--tls-verify=false',
      `docker://${ref}`,
    )) as {
      Labels: Record<string, string>;
      Architecture: string;
    };
    expect(arm).toMatchObject({
      Architecture: 'arm64',
      Labels: { 'org.opencontainers.image.title': 'memcached-operator' },
    });
  });
});

describe('opkit image build refuses bad input in one line', () => {
  it('a missing entry module', async () => {
    const result = await cli([
      'image',
      'build',
      '--operator',
      'operators/memcached',
      '--entry',
      'src/nope.ts',
      '--base',
      baseLayout,
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('opkit: operators/memcached/src/nope.ts: no such entry module\n');
  });

  it('an unreadable base', async () => {
    const result = await cli([
      'image',
      'build',
      '--operator',
      'operators/memcached',
      '--base',
      join(scratch, 'nowhere'),
      '--layout',
      join(scratch, 'never'),
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^opkit: cannot read base image .*nowhere: .*no oci-layout file.*\n$/);
  });

  it('a base without a linux platform', async () => {
    const result = await cli([
      'image',
      'build',
      '--operator',
      'operators/memcached',
      '--base',
      `${join(scratch, 'windows')}:w`,
      '--layout',
      join(scratch, 'never'),
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^opkit: base image .* has no linux platform \(it has windows\/amd64\)\n$/);
  });

  it('a root or named user', async () => {
    const result = await cli([
      'image',
      'build',
      '--operator',
      'operators/memcached',
      '--user',
      'root',
      '--base',
      baseLayout,
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^opkit: --user must be a numeric non-root uid\[:gid\].*"root"\n$/);
  });

  it('a push without a destination', async () => {
    const result = await cli(['image', 'push', `${baseLayout}:node:24`]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^opkit: name the destination: .*\n$/);
  });
});
