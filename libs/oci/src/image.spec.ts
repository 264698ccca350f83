import { describe, expect, it } from 'vitest';
import { sha256Digest } from './digest.js';
import { InputInvalidError, ManifestInvalidError } from './errors.js';
import {
  assembleImage,
  buildImage,
  imageLabels,
  MediaType,
  parseImageConfig,
  parseManifest,
} from './image.js';
import { layerFromEntries } from './layer.js';

const layer = layerFromEntries([{ path: 'manifests/x.yaml', content: 'x: 1\n' }]);

describe('buildImage', () => {
  it('writes an OCI config with labels, diff_ids and fixed history', () => {
    const image = buildImage([layer], {
      labels: { 'z.label': 'z', 'a.label': 'a' },
      createdBy: ['COPY x /'],
    });
    expect(JSON.parse(Buffer.from(image.configBytes).toString())).toEqual({
      created: '1970-01-01T00:00:00Z',
      architecture: 'amd64',
      os: 'linux',
      config: { Labels: { 'a.label': 'a', 'z.label': 'z' } },
      rootfs: { type: 'layers', diff_ids: [layer.tarDigest] },
      history: [{ created: '1970-01-01T00:00:00Z', created_by: 'COPY x /' }],
    });
    // Labels are serialized in key order whatever the insertion order.
    expect(Buffer.from(image.configBytes).toString()).toContain('{"Labels":{"a.label":"a","z.label":"z"}}');
  });

  it('writes an OCI manifest referencing config and gzip layers', () => {
    const image = buildImage([layer], { created: 1_700_000_000, architecture: 'arm64' });
    expect(JSON.parse(Buffer.from(image.manifestBytes).toString())).toEqual({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: {
        mediaType: 'application/vnd.oci.image.config.v1+json',
        digest: sha256Digest(image.configBytes),
        size: image.configBytes.byteLength,
      },
      layers: [
        {
          mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip',
          digest: layer.gzDigest,
          size: layer.size,
        },
      ],
    });
    expect(image.digest).toBe(sha256Digest(image.manifestBytes));
    expect(image.config.created).toBe('2023-11-14T22:13:20Z');
    expect(image.config.architecture).toBe('arm64');
  });

  it('gives equal digests for equal inputs', () => {
    const a = buildImage([layer], { labels: { a: '1', b: '2' } });
    const b = buildImage([layer], { labels: { b: '2', a: '1' } });
    expect(b.digest).toBe(a.digest);
    expect(buildImage([layer], { labels: { a: '1' } }).digest).not.toBe(a.digest);
  });
});

describe('buildImage runtime config', () => {
  const runtime = {
    user: '11211:11211',
    entrypoint: ['/usr/local/bin/node'],
    cmd: ['memcached', '-v'],
    env: ['PATH=/usr/local/bin:/usr/bin:/bin', 'A=b=c'],
    workingDir: '/data',
    exposedPorts: ['11211/tcp', '53/udp', '8080'],
  };

  it('writes User, ExposedPorts, Env, Entrypoint, Cmd and WorkingDir under config in a fixed order', () => {
    const image = buildImage([layer], { ...runtime, labels: { k: 'v' } });
    const text = Buffer.from(image.configBytes).toString();
    expect(text).toContain(
      '"config":{"User":"11211:11211","ExposedPorts":{"11211/tcp":{},"53/udp":{},"8080/tcp":{}},' +
        '"Env":["PATH=/usr/local/bin:/usr/bin:/bin","A=b=c"],"Entrypoint":["/usr/local/bin/node"],' +
        '"Cmd":["memcached","-v"],"WorkingDir":"/data","Labels":{"k":"v"}}',
    );
    expect(image.config.config).toEqual(JSON.parse(text).config);
    expect(parseImageConfig(image.configBytes, 'test').config?.User).toBe('11211:11211');
  });

  it('gives equal digests whatever the order of options and ports', () => {
    const a = buildImage([layer], runtime);
    const b = buildImage([layer], {
      exposedPorts: ['8080/tcp', '53/udp', '11211/tcp', '8080'],
      workingDir: '/data',
      env: runtime.env,
      cmd: runtime.cmd,
      entrypoint: runtime.entrypoint,
      user: '11211:11211',
    });
    expect(b.digest).toBe(a.digest);
    expect(buildImage([layer], { ...runtime, env: [...runtime.env].reverse() }).digest).not.toBe(a.digest);
  });

  it('writes only the keys that are given, and only Labels without runtime options', () => {
    const plain = JSON.parse(Buffer.from(buildImage([layer]).configBytes).toString());
    expect(plain.config).toEqual({ Labels: {} });
    const cmdOnly = JSON.parse(Buffer.from(buildImage([layer], { cmd: ['sh'] }).configBytes).toString());
    expect(cmdOnly.config).toEqual({ Cmd: ['sh'], Labels: {} });
    const empty = JSON.parse(Buffer.from(buildImage([layer], { entrypoint: [] }).configBytes).toString());
    expect(empty.config).toEqual({ Entrypoint: [], Labels: {} });
  });

  it('rejects env entries without "=", bad ports and a relative working directory', () => {
    expect(() => buildImage([layer], { env: ['PATH'] })).toThrow(InputInvalidError);
    expect(() => buildImage([layer], { env: ['=x'] })).toThrow(InputInvalidError);
    expect(() => buildImage([layer], { exposedPorts: ['http'] })).toThrow(InputInvalidError);
    expect(() => buildImage([layer], { exposedPorts: ['70000/tcp'] })).toThrow(InputInvalidError);
    expect(() => buildImage([layer], { exposedPorts: ['80/icmp'] })).toThrow(InputInvalidError);
    expect(() => buildImage([layer], { workingDir: 'data' })).toThrow(InputInvalidError);
  });
});

describe('parsing', () => {
  const image = buildImage([layer], { labels: { k: 'v' } });

  it('round-trips through assembleImage with digest verification', async () => {
    const blobs = new Map([
      [image.manifest.config.digest, image.configBytes],
      [layer.gzDigest, layer.bytes],
    ]);
    const back = await assembleImage(image.manifestBytes, 'test', async (d) => blobs.get(d.digest)!);
    expect(back.digest).toBe(image.digest);
    expect(imageLabels(back)).toEqual({ k: 'v' });
    await expect(
      assembleImage(image.manifestBytes, 'test', async (d) =>
        d.digest === layer.gzDigest ? new Uint8Array([1]) : blobs.get(d.digest)!,
      ),
    ).rejects.toMatchObject({ code: 'OCI_DIGEST_MISMATCH' });
  });

  it('rejects malformed manifests with OCI_MANIFEST_INVALID', () => {
    const bad = (doc: unknown): Uint8Array => Buffer.from(JSON.stringify(doc));
    expect(() => parseManifest(Buffer.from('{'), 'r')).toThrow(ManifestInvalidError);
    expect(() => parseManifest(bad({ schemaVersion: 1 }), 'r')).toThrow(/schemaVersion must be 2/);
    expect(() =>
      parseManifest(bad({ ...image.manifest, layers: [{ mediaType: 'x', digest: 'md5:1', size: 1 }] }), 'r'),
    ).toThrow(/layers\[0\]\.digest/);
    expect(() => parseManifest(bad({ ...image.manifest, mediaType: MediaType.ociIndex }), 'r')).toThrow(
      /unsupported manifest media type/,
    );
    expect(() => parseImageConfig(bad({ os: 'linux' }), 'c')).toThrow(/architecture and os/);
    expect(() => parseImageConfig(bad({ os: 'linux', architecture: 'amd64', rootfs: {} }), 'c')).toThrow(
      /diff_ids/,
    );
  });

  it('accepts Docker schema 2 manifests', () => {
    const docker = {
      schemaVersion: 2,
      mediaType: MediaType.dockerManifest,
      config: { mediaType: MediaType.dockerConfig, digest: image.manifest.config.digest, size: 1 },
      layers: [{ mediaType: MediaType.dockerLayerGzip, digest: layer.gzDigest, size: layer.size }],
    };
    expect(parseManifest(Buffer.from(JSON.stringify(docker)), 'r').layers).toHaveLength(1);
  });
});
