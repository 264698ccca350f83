import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer as createHttpServer, type Server as HttpServer, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sha256Digest } from './digest.js';
import { buildImage, MediaType, type OciImage } from './image.js';
import { buildImageIndex, isImageIndex } from './image-index.js';
import { layerFromEntries } from './layer.js';
import { readLayoutEntry, writeLayout } from './layout.js';
import { type ProgressEvent, RegistryClient, type RegistryClientOptions } from './registry-client.js';
import { FakeRegistry, type FakeRegistryOptions } from './testing/fake-registry.js';

// Incompressible content so the gzip layer is big enough to need several chunks.
const payload = randomBytes(1000).toString('base64');
const image = buildImage(
  [
    layerFromEntries([
      { path: 'manifests/x.yaml', content: payload },
      { path: 'metadata/annotations.yaml', content: 'a' },
    ]),
  ],
  { labels: { 'operators.operatorframework.io.bundle.package.v1': 'x' } },
);
const layerSize = image.layers[0]!.descriptor.size;

const fakes: FakeRegistry[] = [];
const clients: RegistryClient[] = [];
async function fake(options: FakeRegistryOptions = {}): Promise<FakeRegistry> {
  const registry = await FakeRegistry.start(options);
  fakes.push(registry);
  return registry;
}
function client(options: RegistryClientOptions = {}): RegistryClient {
  const c = new RegistryClient({ plainHttp: true, retryDelayMs: 1, ...options });
  clients.push(c);
  return c;
}
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await Promise.all(fakes.splice(0).map((f) => f.stop()));
});

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0;
}

describe('push and pull', () => {
  it('uploads blobs first (HEAD, POST, PUT ?digest=) and the manifest last', async () => {
    const registry = await fake();
    const result = await client().push(image, `${registry.host}/team/bundle:v1`);
    expect(result).toEqual({
      reference: `${registry.host}/team/bundle:v1`,
      digest: image.digest,
      size: image.manifestBytes.byteLength,
      blobs: [
        { digest: image.layers[0]!.descriptor.digest, size: layerSize, uploaded: true },
        { digest: image.manifest.config.digest, size: image.configBytes.byteLength, uploaded: true },
      ],
    });
    const calls = registry.requests.map((r) => `${r.method} ${r.status}`);
    expect(calls).toEqual(['HEAD 404', 'POST 202', 'PUT 201', 'HEAD 404', 'POST 202', 'PUT 201', 'PUT 201']);
    expect(registry.requests.at(-1)).toMatchObject({
      path: '/v2/team/bundle/manifests/v1',
      contentType: MediaType.ociManifest,
    });
    expect(registry.requests[2]).toMatchObject({
      query: { _state: 's0', digest: image.layers[0]!.descriptor.digest },
      bodyLength: layerSize,
      contentType: 'application/octet-stream',
    });
  });

  it('believes no registry that lies: a blob longer than its descriptor is cut off, another one is refused by digest', async () => {
    const registry = await fake();
    const c = client({ retries: 0 });
    await c.push(image, `${registry.host}/lies/bundle:v1`);
    const layer = image.layers[0]!.descriptor.digest;
    const honest = registry.blobs.get(layer)!;
    registry.blobs.set(layer, Buffer.concat([honest, Buffer.alloc(1024 * 1024)]));
    await expect(c.pull(`${registry.host}/lies/bundle:v1`)).rejects.toMatchObject({
      code: 'OCI_LENGTH_MISMATCH',
      message: expect.stringContaining(`more than the ${layerSize} bytes expected for blob ${layer}`),
    });
    const swapped = Buffer.from(honest);
    swapped[swapped.length - 1] = (swapped.at(-1) ?? 0) ^ 0xff;
    registry.blobs.set(layer, swapped);
    await expect(c.pull(`${registry.host}/lies/bundle:v1`)).rejects.toThrow(/digest/i);
  });

  it('pulls back the identical image with OCI and Docker Accept types', async () => {
    const registry = await fake();
    const c = client();
    await c.push(image, `${registry.host}/team/bundle:v1`);
    const events: ProgressEvent[] = [];
    const pulled = await c.pull(`${registry.host}/team/bundle:v1`, { onProgress: (e) => events.push(e) });
    expect(pulled.digest).toBe(image.digest);
    expect(sameBytes(pulled.manifestBytes, image.manifestBytes)).toBe(true);
    expect(sameBytes(pulled.layers[0]!.bytes, image.layers[0]!.bytes)).toBe(true);
    expect(pulled.config.config?.Labels).toEqual(image.config.config?.Labels);
    expect(events.map((e) => e.phase)).toEqual(['download', 'download']);
    const accept = registry.requests.find(
      (r) => r.method === 'GET' && r.path.includes('/manifests/'),
    )?.accept;
    expect(accept?.split(', ')).toEqual([
      MediaType.ociManifest,
      MediaType.dockerManifest,
      MediaType.ociIndex,
      MediaType.dockerManifestList,
    ]);
    const byDigest = await c.pull(`${registry.host}/team/bundle@${image.digest}`);
    expect(byDigest.digest).toBe(image.digest);
    expect(await c.resolve(`${registry.host}/team/bundle:v1`)).toEqual({
      mediaType: MediaType.ociManifest,
      digest: image.digest,
      size: image.manifestBytes.byteLength,
    });
  });

  it('skips blobs the registry already has', async () => {
    const registry = await fake();
    const c = client();
    await c.push(image, `${registry.host}/a:v1`);
    registry.requests.length = 0;
    const events: ProgressEvent[] = [];
    const result = await c.push(image, `${registry.host}/a:v2`, { onProgress: (e) => events.push(e) });
    expect(result.blobs.map((b) => b.uploaded)).toEqual([false, false]);
    expect(registry.requests.map((r) => r.method)).toEqual(['HEAD', 'HEAD', 'PUT']);
    expect(events.map((e) => [e.phase, e.bytes === e.total])).toEqual([
      ['exists', true],
      ['exists', true],
    ]);
  });

  it('pushes an image layout directory', async () => {
    const registry = await fake();
    const dir = await mkdtemp(join(tmpdir(), 'oci-push-'));
    try {
      await writeLayout(join(dir, 'layout'), [{ image, tag: 'v1' }]);
      const result = await client().push(join(dir, 'layout'), `${registry.host}/from-layout`, {
        layoutRef: 'v1',
      });
      expect(result.reference).toBe(`${registry.host}/from-layout:latest`);
      expect(
        registry.manifests.get('from-layout:latest')?.bytes.equals(Buffer.from(image.manifestBytes)),
      ).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('resolves an image index to the linux/amd64 manifest', async () => {
    const registry = await fake();
    const c = client();
    const arm = buildImage(
      image.layers.map(() => layerFromEntries([{ path: 'x', content: payload }])),
      {
        architecture: 'arm64',
      },
    );
    await c.push(image, `${registry.host}/multi:amd64`);
    await c.push(arm, `${registry.host}/multi:arm64`);
    const index = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: MediaType.ociIndex,
        manifests: [
          {
            mediaType: arm.mediaType,
            digest: arm.digest,
            size: arm.manifestBytes.byteLength,
            platform: { os: 'linux', architecture: 'arm64' },
          },
          {
            mediaType: image.mediaType,
            digest: image.digest,
            size: image.manifestBytes.byteLength,
            platform: { os: 'linux', architecture: 'amd64' },
          },
        ],
      }),
    );
    registry.manifests.set('multi:list', { bytes: index, mediaType: MediaType.ociIndex });
    expect((await c.pull(`${registry.host}/multi:list`)).digest).toBe(image.digest);
    expect(
      (await c.pull(`${registry.host}/multi:list`, { platform: { os: 'linux', architecture: 'arm64' } }))
        .digest,
    ).toBe(arm.digest);
    await expect(
      c.pull(`${registry.host}/multi:list`, { platform: { os: 'linux', architecture: 's390x' } }),
    ).rejects.toThrow(/no manifest for linux\/s390x/);
  });

  it('rejects a push whose reference digest differs from the image', async () => {
    const registry = await fake();
    await expect(
      client().push(image, `${registry.host}/a@${sha256Digest(new Uint8Array())}`),
    ).rejects.toMatchObject({
      code: 'OCI_MANIFEST_INVALID',
    });
    expect(registry.requests).toEqual([]);
  });

  describe('image indexes', () => {
    const shared = layerFromEntries([{ path: 'app/main.mjs', content: payload }]);
    const amd = buildImage([layerFromEntries([{ path: 'os', content: 'amd64' }]), shared], {
      architecture: 'amd64',
    });
    const arm = buildImage([layerFromEntries([{ path: 'os', content: 'arm64' }]), shared], {
      architecture: 'arm64',
    });
    const multi = buildImageIndex([amd, arm]);

    it('pushes each image by digest, then the index by tag, uploading a shared blob once', async () => {
      const registry = await fake();
      const result = await client().push(multi, `${registry.host}/team/app:v1`);
      expect(result.digest).toBe(multi.digest);
      expect(result.size).toBe(multi.indexBytes.byteLength);
      expect(result.images).toEqual([
        { platform: { architecture: 'amd64', os: 'linux' }, digest: amd.digest },
        { platform: { architecture: 'arm64', os: 'linux' }, digest: arm.digest },
      ]);
      expect(result.blobs.map((b) => b.digest)).toEqual([
        amd.layers[0]!.descriptor.digest,
        shared.gzDigest,
        amd.manifest.config.digest,
        arm.layers[0]!.descriptor.digest,
        arm.manifest.config.digest,
      ]);
      const puts = registry.requests.filter((r) => r.method === 'PUT' && r.path.includes('/manifests/'));
      expect(puts.map((r) => [r.path, r.contentType])).toEqual([
        [`/v2/team/app/manifests/${amd.digest}`, MediaType.ociManifest],
        [`/v2/team/app/manifests/${arm.digest}`, MediaType.ociManifest],
        ['/v2/team/app/manifests/v1', MediaType.ociIndex],
      ]);
    });

    it('pulls every platform back, or only the accepted ones', async () => {
      const registry = await fake();
      const c = client();
      await c.push(multi, `${registry.host}/team/app:v1`);
      const all = await c.pullAll(`${registry.host}/team/app:v1`);
      if (!isImageIndex(all)) throw new Error('expected an index');
      expect(sameBytes(all.indexBytes, multi.indexBytes)).toBe(true);
      expect(all.images.map((e) => e.image.digest)).toEqual([amd.digest, arm.digest]);
      expect(sameBytes(all.images[1]!.image.layers[0]!.bytes, arm.layers[0]!.bytes)).toBe(true);
      registry.requests.length = 0;
      const armOnly = await c.pullAll(`${registry.host}/team/app@${multi.digest}`, {
        platforms: (p) => p.architecture === 'arm64',
      });
      expect(isImageIndex(armOnly) && armOnly.images.map((e) => e.image.digest)).toEqual([arm.digest]);
      expect(registry.requests.some((r) => r.path.endsWith(amd.digest))).toBe(false);
      expect((await c.pullAll(`${registry.host}/team/app@${amd.digest}`)).digest).toBe(amd.digest);
      // The single-image pull still resolves the index to one platform.
      expect((await c.pull(`${registry.host}/team/app:v1`)).digest).toBe(amd.digest);
    });

    it('pulls into a layout: the whole index, the accepted platforms as a new index, or one image', async () => {
      const registry = await fake();
      const c = client();
      await c.push(multi, `${registry.host}/team/app:v1`);
      const dir = await mkdtemp(join(tmpdir(), 'oci-pull-layout-'));
      try {
        const all = await c.pullToLayout(`${registry.host}/team/app:v1`, join(dir, 'all'), { tag: 'v1' });
        expect(all).toMatchObject({ digest: multi.digest, mediaType: MediaType.ociIndex });
        expect(all.images.map((e) => e.digest)).toEqual([amd.digest, arm.digest]);
        const back = await readLayoutEntry(join(dir, 'all'), 'v1');
        expect(isImageIndex(back) && back.images.map((e) => e.image.digest)).toEqual([
          amd.digest,
          arm.digest,
        ]);

        const armOnly = await c.pullToLayout(`${registry.host}/team/app:v1`, join(dir, 'arm'), {
          platforms: (p) => p.architecture === 'arm64',
        });
        expect(armOnly.digest).toBe(buildImageIndex([arm]).digest);
        expect((await readLayoutEntry(join(dir, 'arm'))).digest).toBe(armOnly.digest);

        const one = await c.pullToLayout(`${registry.host}/team/app:v1`, join(dir, 'one'), {
          platform: { os: 'linux', architecture: 'arm64' },
        });
        expect(one).toEqual({ mediaType: MediaType.ociManifest, digest: arm.digest, images: [] });
        expect((await readLayoutEntry(join(dir, 'one'))).digest).toBe(arm.digest);

        await expect(
          c.pullToLayout(`${registry.host}/team/app:v1`, join(dir, 'none'), { platforms: () => false }),
        ).rejects.toThrow('image index has no manifest for the platforms asked for');
        await expect(
          c.pullToLayout(`${registry.host}/team/app:v1`, join(dir, 'bad'), { tag: 'a b' }),
        ).rejects.toMatchObject({ code: 'OCI_LAYOUT_INVALID' });
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    it('pushes an index from a layout, and refuses an index missing images', async () => {
      const registry = await fake();
      const dir = await mkdtemp(join(tmpdir(), 'oci-push-'));
      try {
        await writeLayout(join(dir, 'layout'), [{ image: multi, tag: 'registry.example/app:1' }]);
        const result = await client().push(join(dir, 'layout'), `${registry.host}/from-layout:1`);
        expect(result.digest).toBe(multi.digest);
        expect(registry.manifests.get(`from-layout@${arm.digest}`)?.mediaType).toBe(MediaType.ociManifest);
        expect(registry.manifests.get('from-layout:1')?.mediaType).toBe(MediaType.ociIndex);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
      await expect(
        client().push({ ...multi, images: multi.images.slice(0, 1) }, `${registry.host}/partial:1`),
      ).rejects.toMatchObject({ code: 'OCI_INPUT_INVALID' });
    });
  });
});

describe('chunked uploads', () => {
  it('sends POST, contiguous PATCH chunks with Content-Range, then PUT ?digest= without body', async () => {
    const registry = await fake();
    const events: ProgressEvent[] = [];
    await client().push(image, `${registry.host}/chunky:v1`, {
      uploadMode: 'chunked',
      chunkSize: 256,
      onProgress: (e) => events.push(e),
    });
    const layerDigest = image.layers[0]!.descriptor.digest;
    const patches = registry.requests.filter((r) => r.method === 'PATCH');
    const expectedChunks = Math.ceil(layerSize / 256) + Math.ceil(image.configBytes.byteLength / 256);
    expect(patches).toHaveLength(expectedChunks);
    const layerPatches = patches.slice(0, Math.ceil(layerSize / 256));
    expect(layerPatches.map((p) => p.contentRange)).toEqual(
      layerPatches.map((_, i) => `${i * 256}-${Math.min((i + 1) * 256, layerSize) - 1}`),
    );
    // Each PATCH goes to the Location returned by the previous step.
    expect(layerPatches.map((p) => p.query._state)).toEqual(layerPatches.map((_, i) => `s${i * 256}`));
    const commit = registry.requests.find((r) => r.method === 'PUT' && r.query.digest === layerDigest);
    expect(commit).toMatchObject({ bodyLength: 0, status: 201 });
    expect(registry.blobs.get(layerDigest)?.equals(Buffer.from(image.layers[0]!.bytes))).toBe(true);
    const layerEvents = events.filter((e) => e.digest === layerDigest).map((e) => e.bytes);
    expect(layerEvents.at(-1)).toBe(layerSize);
    expect([...layerEvents].sort((a, b) => a - b)).toEqual(layerEvents);
  });

  it('uses chunks automatically above chunkSize and honours OCI-Chunk-Min-Length', async () => {
    const registry = await fake({ chunkMinLength: 700 });
    await client({ chunkSize: 500 }).push(image, `${registry.host}/auto:v1`);
    const ranges = registry.requests.filter((r) => r.method === 'PATCH').map((r) => r.contentRange);
    expect(ranges[0]).toBe('0-699');
    // The config is smaller than chunkSize: monolithic PUT with body.
    const configPut = registry.requests.find((r) => r.query.digest === image.manifest.config.digest);
    expect(configPut?.bodyLength).toBe(image.configBytes.byteLength);
  });

  it('recovers when a chunk landed but its answer was lost (retry gets 416, then GET upload status)', async () => {
    const registry = await fake();
    registry.faults.push({
      method: 'PATCH',
      path: /blobs\/uploads\/.+/,
      status: 500,
      times: 1,
      afterHandling: true,
    });
    await client().push(image, `${registry.host}/lost:v1`, { uploadMode: 'chunked', chunkSize: 300 });
    const calls = registry.requests.filter((r) => r.path.includes('/uploads/')).slice(0, 5);
    expect(calls.map((r) => `${r.method} ${r.status}`)).toEqual([
      'POST 202',
      'PATCH 500',
      'PATCH 416',
      'GET 204',
      'PATCH 202',
    ]);
    expect(
      registry.blobs.get(image.layers[0]!.descriptor.digest)?.equals(Buffer.from(image.layers[0]!.bytes)),
    ).toBe(true);
  });
});

describe('retries', () => {
  it('retries a 500 and succeeds', async () => {
    const registry = await fake();
    registry.faults.push({ method: 'PUT', path: /manifests/, status: 500, times: 1 });
    await client().push(image, `${registry.host}/r:v1`);
    const manifestPuts = registry.requests.filter((r) => r.method === 'PUT' && r.path.includes('manifests'));
    expect(manifestPuts.map((r) => r.status)).toEqual([500, 201]);
  });

  it('honours Retry-After on 429 within the delay bound', async () => {
    const registry = await fake();
    registry.faults.push({ method: 'HEAD', path: /blobs/, status: 429, times: 1, retryAfter: '30' });
    const started = Date.now();
    await client({ maxRetryDelayMs: 20 }).push(image, `${registry.host}/r:v1`);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(registry.requests.slice(0, 2).map((r) => r.status)).toEqual([429, 404]);
  });

  it('gives up after the configured retries with OCI_REGISTRY_ERROR and never writes the manifest', async () => {
    const registry = await fake();
    registry.faults.push({ method: 'PUT', path: /blobs\/uploads/, status: 503, times: 10 });
    const error = await client({ retries: 2 })
      .push(image, `${registry.host}/r:v1`)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'OCI_REGISTRY_ERROR', status: 503 });
    expect((error as Error).message).toBe(
      `registry ${registry.host} failed for ${registry.host}/r:v1: blob ${image.layers[0]!.descriptor.digest} upload answered 503 (INJECTED: injected 503)`,
    );
    expect(registry.requests.filter((r) => r.method === 'PUT').map((r) => r.status)).toEqual([503, 503, 503]);
    expect(registry.requests.some((r) => r.path.includes('/manifests/'))).toBe(false);
  });

  it('reports an unreachable registry after bounded retries', async () => {
    const port = await closedPort();
    const error = await client({ retries: 1 })
      .pull(`127.0.0.1:${port}/nothing:v1`)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'OCI_REGISTRY_UNREACHABLE', registry: `127.0.0.1:${port}` });
    const message = (error as Error).message;
    expect(message).toMatch(
      new RegExp(
        `^registry 127\\.0\\.0\\.1:${port} unreachable for 127\\.0\\.0\\.1:${port}/nothing:v1: GET .*ECONNREFUSED.*\\(after 2 attempts\\)$`,
      ),
    );
    expect(message).not.toContain('\n');
  });

  it('maps a missing manifest to OCI_NOT_FOUND and a rejected manifest to OCI_MANIFEST_INVALID', async () => {
    const registry = await fake();
    await expect(client().pull(`${registry.host}/none:v1`)).rejects.toMatchObject({
      code: 'OCI_NOT_FOUND',
      message: `manifest not found on ${registry.host} for ${registry.host}/none:v1`,
    });
    registry.faults.push({ method: 'PUT', path: /manifests/, status: 400, times: 1 });
    await expect(client().push(image, `${registry.host}/bad:v1`)).rejects.toMatchObject({
      code: 'OCI_MANIFEST_INVALID',
    });
  });
});

describe('the error text of a hostile registry', () => {
  it('quotes a few errors, each cut to 512 characters, and redacts 4 MiB of them at once', async () => {
    // 4 MiB in all, the most a manifest answer may hold; `=a:` repeated was quadratic to redact.
    const message = '=a:'.repeat((4 * 1024 * 1024 - 1024) / 3 / 8);
    const errors = Array.from({ length: 8 }, () => ({ code: 'DENIED', message }));
    const body = JSON.stringify({ errors });
    const server: HttpServer = createHttpServer((_, res) => {
      res.writeHead(500, { 'content-type': 'application/json' }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
      const started = performance.now();
      const error = await client({ retries: 0 })
        .pull(`${host}/team/app:v1`)
        .catch((e: unknown) => e as Error);
      expect(performance.now() - started).toBeLessThan(2000);
      const detail = `DENIED: ${message.slice(0, 512)}…`;
      expect(error).toMatchObject({
        code: 'OCI_REGISTRY_ERROR',
        message: `registry ${host} failed for ${host}/team/app:v1: manifest answered 500 (${[detail, detail, detail, detail, detail, '3 more'].join('; ')})`,
      });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('a registry that lies about what it sends', () => {
  const layer = image.layers[0]!.descriptor;
  const blobs = new Map<string, Uint8Array>([
    [image.manifest.config.digest, image.configBytes],
    [layer.digest, image.layers[0]!.bytes],
  ]);
  /** Serves `image` honestly, except that the layer blob is answered by `lie`. */
  async function lyingRegistry(lie: (res: ServerResponse, blob: Uint8Array) => void): Promise<string> {
    const server = createHttpServer((req, res) => {
      const url = req.url ?? '';
      if (url.startsWith('/v2/r/manifests/')) {
        res.writeHead(200, {
          'content-type': image.mediaType,
          'docker-content-digest': image.digest,
          'content-length': String(image.manifestBytes.byteLength),
        });
        res.end(image.manifestBytes);
        return;
      }
      const digest = url.slice('/v2/r/blobs/'.length);
      const blob = blobs.get(digest);
      if (blob === undefined) res.writeHead(404).end();
      else if (digest === layer.digest) lie(res, blob);
      else res.writeHead(200, { 'content-length': String(blob.byteLength) }).end(blob);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    return `127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  const servers: HttpServer[] = [];
  afterEach(() => {
    for (const s of servers.splice(0)) s.close();
  });

  it('says a body cut short of its Content-Length is one, after retrying it', async () => {
    const host = await lyingRegistry((res, blob) => {
      res.writeHead(200, { 'content-length': String(blob.byteLength) });
      res.write(blob.subarray(0, 12));
      // Hang up early: 12 of the promised bytes.
      setTimeout(() => res.destroy(), 10);
    });
    const error = await client({ retries: 1 })
      .pull(`${host}/r:v1`)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'OCI_LENGTH_MISMATCH', registry: host });
    expect((error as Error).message).toBe(
      `registry ${host} sent 12 bytes for blob ${layer.digest}, Content-Length said ${layer.size}, after 2 attempts (${host}/r:v1)`,
    );
  });

  it('refuses a Content-Length past the descriptor before reading the body', async () => {
    const host = await lyingRegistry((res, blob) => {
      const oversized = Buffer.concat([blob, Buffer.alloc(8 << 20)]);
      res.writeHead(200, { 'content-length': String(oversized.byteLength) }).end(oversized);
    });
    await expect(client({ retries: 0 }).pull(`${host}/r:v1`)).rejects.toThrow(
      `registry ${host} sent more than the ${layer.size} bytes expected for blob ${layer.digest}, Content-Length said ${layer.size + (8 << 20)} (${host}/r:v1)`,
    );
  });

  it('says a body longer than its Content-Length is', async () => {
    const host = await lyingRegistry((res, blob) => {
      // Says 40 bytes and sends the whole blob, on the socket (Node's server would refuse to).
      const head = 'HTTP/1.1 200 OK\r\ncontent-length: 40\r\nconnection: close\r\n\r\n';
      res.socket?.end(Buffer.concat([Buffer.from(head), blob]));
    });
    await expect(client({ retries: 0 }).pull(`${host}/r:v1`)).rejects.toMatchObject({
      code: 'OCI_LENGTH_MISMATCH',
      message: `registry ${host} sent more than the 40 bytes its Content-Length said for blob ${layer.digest} (${host}/r:v1)`,
    });
  });

  it('reports bytes of the right length that do not hash to the digest as a digest mismatch', async () => {
    const host = await lyingRegistry((res, blob) => {
      const wrong = Buffer.from(blob);
      wrong[wrong.length - 1] = (wrong.at(-1) ?? 0) ^ 0xff;
      res.writeHead(200, { 'content-length': String(wrong.byteLength) }).end(wrong);
    });
    await expect(client({ retries: 0 }).pull(`${host}/r:v1`)).rejects.toMatchObject({
      code: 'OCI_DIGEST_MISMATCH',
      message: expect.stringMatching(`^digest mismatch for .*: expected ${layer.digest}, got sha256:`),
    });
  });
});

describe('authentication', () => {
  it('follows a bearer challenge, fetches a token with basic credentials and caches it', async () => {
    const registry = await fake({ auth: { kind: 'bearer', username: 'alice', password: 's3cret' } });
    const c = client({ credentials: { [registry.host]: { username: 'alice', password: 's3cret' } } });
    await c.push(image, `${registry.host}/team/bundle:v1`);
    expect(registry.requests[0]).toMatchObject({ method: 'HEAD', status: 401 });
    expect(registry.requests[0]?.authorization).toBeUndefined();
    const registryCalls = registry.requests.filter((r) => r.path !== '/token');
    expect(registryCalls.slice(1).map((r) => r.authorization)).toEqual(
      registryCalls.slice(1).map(() => 'Bearer tok-1'),
    );
    expect(registry.tokenRequests).toHaveLength(1);
    const token = registry.tokenRequests[0]!;
    expect(token.query.get('service')).toBe('fake-registry');
    expect(token.query.getAll('scope')).toEqual(['repository:team/bundle:pull,push']);
    expect(token.authorization).toBe(`Basic ${Buffer.from('alice:s3cret').toString('base64')}`);

    // Pull needs another scope: one more token, fetched before the request (no extra 401).
    registry.requests.length = 0;
    expect((await c.pull(`${registry.host}/team/bundle:v1`)).digest).toBe(image.digest);
    expect(registry.tokenRequests).toHaveLength(2);
    expect(registry.tokenRequests[1]!.query.getAll('scope')).toEqual(['repository:team/bundle:pull']);
    expect(registry.requests.every((r) => r.status === 200)).toBe(true);
  });

  it('gets anonymous tokens without credentials', async () => {
    const registry = await fake({ auth: { kind: 'bearer' } });
    await client().push(image, `${registry.host}/anon:v1`);
    expect(registry.tokenRequests[0]?.authorization).toBeUndefined();
    expect(registry.manifests.has('anon:v1')).toBe(true);
  });

  it('fails with OCI_AUTH_FAILED when the token service rejects the credentials', async () => {
    const registry = await fake({ auth: { kind: 'bearer', username: 'alice', password: 's3cret' } });
    const c = client({ credentials: () => ({ username: 'alice', password: 'wrong' }) });
    await expect(c.push(image, `${registry.host}/team/bundle:v1`)).rejects.toMatchObject({
      code: 'OCI_AUTH_FAILED',
      message: `authentication to ${registry.host} failed for ${registry.host}/team/bundle:v1: token service http://${registry.host}/token rejected the credentials of alice (401)`,
    });
    expect(registry.manifests.size).toBe(0);
  });

  it('uses basic auth when challenged and fails clearly without credentials', async () => {
    const registry = await fake({ auth: { kind: 'basic', username: 'bob', password: 'pw' } });
    await client({ credentials: { [registry.host]: { username: 'bob', password: 'pw' } } }).push(
      image,
      `${registry.host}/basic:v1`,
    );
    expect(registry.manifests.has('basic:v1')).toBe(true);
    await expect(client().pull(`${registry.host}/basic:v1`)).rejects.toMatchObject({
      code: 'OCI_AUTH_FAILED',
      message: expect.stringContaining('requires credentials (basic) and none are configured'),
    });
    await expect(
      client({ credentials: { [registry.host]: { username: 'bob', password: 'nope' } } }).ping(registry.host),
    ).rejects.toMatchObject({ code: 'OCI_AUTH_FAILED', message: expect.stringContaining('answered 401') });
  });
});

describe('https', () => {
  let dir = '';
  let tls: { key: string; cert: string } | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'oci-tls-'));
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-days',
          '1',
          '-subj',
          '/CN=127.0.0.1',
          '-addext',
          'subjectAltName=IP:127.0.0.1',
          '-keyout',
          join(dir, 'key.pem'),
          '-out',
          join(dir, 'cert.pem'),
        ],
        { stdio: 'ignore' },
      );
      tls = {
        key: await readFile(join(dir, 'key.pem'), 'utf8'),
        cert: await readFile(join(dir, 'cert.pem'), 'utf8'),
      };
    } catch {
      tls = undefined;
    }
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('talks HTTPS with a trusted CA, refuses an unknown one, and can skip verification', async (ctx) => {
    if (tls === undefined) ctx.skip();
    const registry = await fake({ tls: tls! });
    const ref = `${registry.host}/secure:v1`;
    await client({ plainHttp: false, ca: tls!.cert }).push(image, ref);
    await expect(client({ plainHttp: false, retries: 0 }).pull(ref)).rejects.toMatchObject({
      code: 'OCI_REGISTRY_UNREACHABLE',
      message: expect.stringMatching(/self[- ]signed certificate/),
    });
    const pulled: OciImage = await client({ plainHttp: [], insecureSkipTlsVerify: true }).pull(ref);
    expect(pulled.digest).toBe(image.digest);
  });
});

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address !== null ? address.port : 0;
}
