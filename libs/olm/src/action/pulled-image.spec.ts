import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RegistryClient } from '@opkit/oci';
import { afterEach, describe, expect, it } from 'vitest';
import { BUNDLE_IMAGE_LIMITS, withBundleSource } from './bundle-source.js';
import { withPulledImage } from './pulled-image.js';

const sha256 = (bytes: Buffer) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

const config = Buffer.from(
  JSON.stringify({
    architecture: 'amd64',
    os: 'linux',
    config: { Labels: { 'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1' } },
    rootfs: { type: 'layers', diff_ids: [`sha256:${'1'.repeat(64)}`] },
  }),
);

/** A manifest whose one layer claims `layerSize` bytes. */
function manifest(layerSize: number): Buffer {
  return Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: {
        mediaType: 'application/vnd.oci.image.config.v1+json',
        digest: sha256(config),
        size: config.length,
      },
      layers: [
        {
          mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip',
          digest: `sha256:${'2'.repeat(64)}`,
          size: layerSize,
        },
      ],
    }),
  );
}

const servers: Server[] = [];
const clients: RegistryClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A loopback registry: the manifest, the config, and the paths the layer was asked at. */
async function registry(options: { layerSize: number; hang?: boolean }) {
  const asked: string[] = [];
  const server = createServer((req, res) => {
    const url = req.url ?? '';
    asked.push(url);
    if (options.hang === true) return; // never answers
    if (url === '/v2/') return void res.writeHead(200).end();
    if (url.includes('/manifests/')) {
      const bytes = manifest(options.layerSize);
      res.writeHead(200, {
        'content-type': 'application/vnd.oci.image.manifest.v1+json',
        'docker-content-digest': sha256(bytes),
        'content-length': String(bytes.length),
      });
      return void res.end(req.method === 'HEAD' ? undefined : bytes);
    }
    if (url.endsWith(sha256(config))) return void res.writeHead(200).end(config);
    res.writeHead(404).end();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = new RegistryClient({ plainHttp: true, retries: 0 });
  clients.push(client);
  return { host: `127.0.0.1:${(server.address() as AddressInfo).port}`, asked, client };
}

describe('the pull of a bundle image is bounded', () => {
  it('refuses an image past the size limit before downloading the blob that takes it there', async () => {
    const { host, asked, client } = await registry({ layerSize: BUNDLE_IMAGE_LIMITS.pullBytes + 1 });
    const source = `${host}/acme/bundle:v1`;
    await expect(
      withBundleSource(source, { registry: () => client }, () => 'unreachable'),
    ).rejects.toMatchObject({
      code: 'OPKIT_IMAGE_TOO_LARGE',
      message: `${source}: the image is larger than the ${BUNDLE_IMAGE_LIMITS.pullBytes} bytes (64 MiB) allowed`,
    });
    expect(asked.some((path) => path.includes('2222'))).toBe(false);
  });

  it('gives up after the time limit, naming the image', async () => {
    const { host, client } = await registry({ layerSize: 10, hang: true });
    const source = `${host}/acme/bundle:v1`;
    await expect(
      withPulledImage(client, source, async () => 'unreachable', undefined, { timeoutMs: 200 }),
    ).rejects.toMatchObject({
      code: 'OPKIT_IMAGE_PULL_TIMEOUT',
      message: `${source}: the pull took longer than the 200 ms allowed`,
    });
  });
});
