import { describe, expect, it } from 'vitest';
import { appendLayers, BASE_DIGEST_ANNOTATION, BASE_NAME_ANNOTATION } from './append-layers.js';
import { sha256Digest } from './digest.js';
import { assembleImage, buildImage, MediaType, type OciImage } from './image.js';
import { buildImageIndex } from './image-index.js';
import { LAYER_MEDIA_TYPE, layerFromEntries } from './layer.js';

const baseLayer = layerFromEntries([{ path: 'usr/local/bin/node', content: '#!node', mode: 0o755 }]);
const appLayer = layerFromEntries([{ path: 'app/main.mjs', content: 'console.log(1)\n' }], { prefix: '/' });

const base = buildImage([baseLayer], {
  architecture: 'arm64',
  created: 1_600_000_000,
  createdBy: ['ADD rootfs /'],
  env: ['PATH=/usr/bin', 'LANG=C'],
  entrypoint: ['/usr/local/bin/node'],
  cmd: ['--version'],
  exposedPorts: ['80'],
  labels: { 'org.opencontainers.image.title': 'base', vendor: 'x' },
});

function configOf(image: OciImage): Record<string, unknown> {
  return JSON.parse(Buffer.from(image.configBytes).toString('utf8')) as Record<string, unknown>;
}
function manifestOf(image: OciImage): Record<string, unknown> {
  return JSON.parse(Buffer.from(image.manifestBytes).toString('utf8')) as Record<string, unknown>;
}

/** A base as Docker writes it: Docker media types, nulls in `config`, legacy fields. */
async function dockerBase(): Promise<OciImage> {
  const config = Buffer.from(
    JSON.stringify({
      architecture: 'amd64',
      config: {
        Hostname: '',
        Env: ['PATH=/bin'],
        Cmd: ['node'],
        Entrypoint: null,
        Labels: null,
        WorkingDir: '',
      },
      container_config: { Cmd: ['/bin/sh', '-c', '#(nop) CMD ["node"]'] },
      created: '2024-01-01T00:00:00.000000001Z',
      docker_version: '20.10.0',
      history: [{ created: '2024-01-01T00:00:00Z', created_by: '/bin/sh -c #(nop) ADD file:x in /' }],
      os: 'linux',
      rootfs: { type: 'layers', diff_ids: [baseLayer.tarDigest] },
    }),
  );
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MediaType.dockerManifest,
      config: { mediaType: MediaType.dockerConfig, size: config.byteLength, digest: sha256Digest(config) },
      layers: [{ mediaType: MediaType.dockerLayerGzip, size: baseLayer.size, digest: baseLayer.gzDigest }],
    }),
  );
  const blobs = new Map<string, Uint8Array>([
    [sha256Digest(config), config],
    [baseLayer.gzDigest, baseLayer.bytes],
  ]);
  return assembleImage(manifest, 'docker-base', async (d) => blobs.get(d.digest)!);
}

describe('appendLayers to one image', () => {
  it('extends diff_ids and history, applies runtime settings and keeps the base layers', () => {
    const image = appendLayers(base, [appLayer], {
      created: 1_700_000_000,
      createdBy: ['COPY main.mjs /app/'],
      user: '65532:65532',
      cmd: ['/app/main.mjs'],
      workingDir: '/app',
      env: ['LANG=C.UTF-8', 'NODE_ENV=production'],
      exposedPorts: ['8081/tcp'],
      labels: { 'org.opencontainers.image.title': 'app', 'org.opencontainers.image.version': '1.0.0' },
      baseName: 'registry.example/base:1',
    });
    expect(configOf(image)).toEqual({
      created: '2023-11-14T22:13:20Z',
      architecture: 'arm64',
      os: 'linux',
      config: {
        User: '65532:65532',
        ExposedPorts: { '80/tcp': {}, '8081/tcp': {} },
        Env: ['PATH=/usr/bin', 'LANG=C.UTF-8', 'NODE_ENV=production'],
        Entrypoint: ['/usr/local/bin/node'],
        Cmd: ['/app/main.mjs'],
        WorkingDir: '/app',
        Labels: {
          'org.opencontainers.image.title': 'app',
          'org.opencontainers.image.version': '1.0.0',
          vendor: 'x',
        },
      },
      rootfs: { type: 'layers', diff_ids: [baseLayer.tarDigest, appLayer.tarDigest] },
      history: [
        { created: '2020-09-13T12:26:40Z', created_by: 'ADD rootfs /' },
        { created: '2023-11-14T22:13:20Z', created_by: 'COPY main.mjs /app/' },
      ],
    });
    expect(image.layers.map((l) => l.descriptor)).toEqual([
      base.layers[0]!.descriptor,
      { mediaType: LAYER_MEDIA_TYPE, digest: appLayer.gzDigest, size: appLayer.size },
    ]);
    expect(image.layers[0]!.bytes).toBe(base.layers[0]!.bytes);
    expect(manifestOf(image)).toMatchObject({
      mediaType: MediaType.ociManifest,
      config: { mediaType: MediaType.ociConfig, digest: sha256Digest(image.configBytes) },
      annotations: {
        [BASE_DIGEST_ANNOTATION]: base.digest,
        [BASE_NAME_ANNOTATION]: 'registry.example/base:1',
      },
    });
    expect(image.digest).toBe(sha256Digest(image.manifestBytes));
  });

  it('is reproducible, and writes keys in a fixed order whatever the order of the options', () => {
    const a = appendLayers(base, [appLayer], { user: '1:1', workingDir: '/app', labels: { b: '2', a: '1' } });
    const b = appendLayers(base, [appLayer], { labels: { a: '1', b: '2' }, workingDir: '/app', user: '1:1' });
    expect(b.digest).toBe(a.digest);
    expect(Buffer.from(a.configBytes).toString()).toMatch(
      /^\{"created":"1970-01-01T00:00:00Z","architecture":"arm64","os":"linux","config":\{"User":"1:1","ExposedPorts":.*"Labels":\{"a":"1","b":"2",.*\},"rootfs":.*"history":\[.*\]\}$/,
    );
    expect(appendLayers(base, [appLayer], { user: '1:2' }).digest).not.toBe(a.digest);
  });

  it('drops the base Cmd when only the entrypoint is replaced, as a Dockerfile ENTRYPOINT does', () => {
    const config = configOf(appendLayers(base, [appLayer], { entrypoint: ['/bin/app'] }));
    expect(config.config).toMatchObject({ Entrypoint: ['/bin/app'] });
    expect(config.config).not.toHaveProperty('Cmd');
  });

  it('turns a Docker-typed base into an OCI manifest over the same layer blobs', async () => {
    const docker = await dockerBase();
    const image = appendLayers(docker, [appLayer], {
      entrypoint: ['/usr/local/bin/node'],
      cmd: ['/app/main.mjs'],
    });
    expect(image.mediaType).toBe(MediaType.ociManifest);
    expect(image.manifest.config.mediaType).toBe(MediaType.ociConfig);
    expect(image.layers.map((l) => l.descriptor)).toEqual([
      { mediaType: LAYER_MEDIA_TYPE, digest: baseLayer.gzDigest, size: baseLayer.size },
      { mediaType: LAYER_MEDIA_TYPE, digest: appLayer.gzDigest, size: appLayer.size },
    ]);
    const config = configOf(image);
    // Legacy fields are kept (sorted after the known ones); nulls the options do not touch stay null.
    expect(Object.keys(config)).toEqual([
      'created',
      'architecture',
      'os',
      'container_config',
      'docker_version',
      'config',
      'rootfs',
      'history',
    ]);
    expect(config.config).toEqual({
      Env: ['PATH=/bin'],
      Entrypoint: ['/usr/local/bin/node'],
      Cmd: ['/app/main.mjs'],
      WorkingDir: '',
      Labels: null,
      Hostname: '',
    });
    expect(config.history).toHaveLength(2);
  });

  it('leaves history out when the base has layers but no history', async () => {
    const docker = await dockerBase();
    const bare = { ...docker, config: { ...docker.config, history: undefined } };
    expect(configOf(appendLayers(bare, [appLayer]))).not.toHaveProperty('history');
  });

  it('rejects malformed settings', () => {
    expect(() => appendLayers(base, [appLayer], { env: ['NOVALUE'] })).toThrow(/not KEY=value/);
    expect(() => appendLayers(base, [appLayer], { workingDir: 'app' })).toThrow(/not absolute/);
    expect(() => appendLayers(base, [appLayer], { exposedPorts: ['http'] })).toThrow(/exposed port/);
  });
});

describe('appendLayers to an image index', () => {
  const amd = buildImage([layerFromEntries([{ path: 'amd', content: 'a' }])], {
    architecture: 'amd64',
    entrypoint: ['/usr/local/bin/node'],
  });
  const arm = buildImage([layerFromEntries([{ path: 'arm', content: 'b' }])], {
    architecture: 'arm64',
    entrypoint: ['/nodejs/bin/node'],
  });
  const index = buildImageIndex([amd, arm]);

  it('gives every platform the same layer and lists them in a new OCI index', () => {
    const result = appendLayers(index, [appLayer], { cmd: ['/app/main.mjs'], baseName: 'b:1' });
    expect(result.images.map((e) => e.platform)).toEqual([
      { architecture: 'amd64', os: 'linux' },
      { architecture: 'arm64', os: 'linux' },
    ]);
    for (const [i, { image }] of result.images.entries()) {
      const baseImage = [amd, arm][i]!;
      expect(image.layers.map((l) => l.descriptor.digest)).toEqual([
        baseImage.layers[0]!.descriptor.digest,
        appLayer.gzDigest,
      ]);
      expect(image.manifest.annotations?.[BASE_DIGEST_ANNOTATION]).toBe(baseImage.digest);
      expect(image.config.config?.Entrypoint).toEqual(baseImage.config.config?.Entrypoint);
    }
    expect(JSON.parse(Buffer.from(result.indexBytes).toString())).toEqual({
      schemaVersion: 2,
      mediaType: MediaType.ociIndex,
      manifests: result.images.map(({ image, platform }) => ({
        mediaType: MediaType.ociManifest,
        digest: image.digest,
        size: image.manifestBytes.byteLength,
        platform,
      })),
      annotations: { [BASE_DIGEST_ANNOTATION]: index.digest, [BASE_NAME_ANNOTATION]: 'b:1' },
    });
    expect(appendLayers(index, [appLayer], { cmd: ['/app/main.mjs'], baseName: 'b:1' }).digest).toBe(
      result.digest,
    );
  });

  it('takes options per platform from a function of each base image', () => {
    const result = appendLayers(index, [appLayer], (image) => ({
      user: image.config.architecture === 'arm64' ? '2:2' : '1:1',
    }));
    expect(result.images.map((e) => e.image.config.config?.User)).toEqual(['1:1', '2:2']);
  });

  it('refuses an index that holds no image', () => {
    expect(() => appendLayers({ ...index, images: [] }, [appLayer])).toThrow(/holds no image/);
  });
});
