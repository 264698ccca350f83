import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appendLayers,
  buildImage,
  buildImageIndex,
  isImageIndex,
  LAYER_MEDIA_TYPE,
  layerFromEntries,
  MediaType,
  RegistryClient,
  readLayoutEntry,
  writeLayout,
} from '../src/index.js';
import { haveTools, type RunningRegistry, startRegistry } from './support/registry-process.js';

const run = promisify(execFile);
const toolsPresent = haveTools('docker-registry', 'skopeo');

async function skopeoJson(...args: string[]): Promise<Record<string, unknown>> {
  return JSON.parse((await run('skopeo', args, { encoding: 'utf8' })).stdout) as Record<string, unknown>;
}

describe.skipIf(!toolsPresent)('a multi-platform image on a Docker-typed base', () => {
  let dir: string;
  let registry: RunningRegistry;
  const client = new RegistryClient({ plainHttp: true });
  const images = ['amd64', 'arm64'].map((architecture) =>
    buildImage([layerFromEntries([{ path: `etc/${architecture}`, content: architecture }])], {
      architecture,
      entrypoint: ['/usr/bin/node'],
    }),
  );
  const app = layerFromEntries([{ path: 'app/main.mjs', content: 'console.log("hi")\n' }]);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'oci-multi-'));
    registry = await startRegistry(join(dir, 'registry'));
    // skopeo converts our OCI index into a Docker manifest list with Docker media types on the way in.
    await writeLayout(join(dir, 'base'), [{ image: buildImageIndex(images), tag: 'base' }]);
    await run('skopeo', [
      'copy',
      '--all',
      '--format',
      'v2s2',
      '--dest-tls-verify=false',
      `oci:${join(dir, 'base')}:base`,
      `docker://${registry.host}/library/node:docker`,
    ]);
  });

  afterAll(async () => {
    client.close();
    await registry?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('pulls every platform, appends a layer, and skopeo accepts the layout and the pushed index', async () => {
    const base = await client.pullAll(`${registry.host}/library/node:docker`);
    if (!isImageIndex(base)) throw new Error('expected an index');
    expect(base.mediaType).toBe(MediaType.dockerManifestList);
    expect(base.images.map((e) => e.image.layers[0]!.descriptor.mediaType)).toEqual([
      MediaType.dockerLayerGzip,
      MediaType.dockerLayerGzip,
    ]);

    const result = appendLayers(base, [app], { cmd: ['/app/main.mjs'], user: '65532:65532' });
    for (const [i, { image }] of result.images.entries()) {
      // Same blobs as the base, under the OCI name of the same format.
      expect(image.layers[0]!.descriptor).toEqual({
        ...base.images[i]!.image.layers[0]!.descriptor,
        mediaType: LAYER_MEDIA_TYPE,
      });
    }
    await writeLayout(join(dir, 'out'), [{ image: result, tag: 'app' }]);
    const back = await readLayoutEntry(join(dir, 'out'), 'app');
    expect(back.digest).toBe(result.digest);

    const local = await skopeoJson(
      '--override-arch',
      'arm64',
      'inspect',
      '--config',
      `oci:${join(dir, 'out')}:app`,
    );
    expect(local).toMatchObject({
      architecture: 'arm64',
      config: { User: '65532:65532', Entrypoint: ['/usr/bin/node'], Cmd: ['/app/main.mjs'] },
    });

    const pushed = await client.push(join(dir, 'out'), `${registry.host}/acme/app:1`, { layoutRef: 'app' });
    expect(pushed.digest).toBe(result.digest);
    const raw = await skopeoJson(
      'inspect',
      '--raw',
      '--tls-verify=false',
      `docker://${registry.host}/acme/app:1`,
    );
    expect(raw).toMatchObject({
      mediaType: MediaType.ociIndex,
      manifests: [{ platform: { architecture: 'amd64' } }, { platform: { architecture: 'arm64' } }],
    });
    // A full copy reads and verifies every manifest and blob of both platforms.
    await run('skopeo', [
      'copy',
      '--all',
      '--src-tls-verify=false',
      `docker://${registry.host}/acme/app:1`,
      `oci:${join(dir, 'copied')}:app`,
    ]);
    const copied = await skopeoJson('inspect', '--raw', `oci:${join(dir, 'copied')}:app`);
    expect(copied.manifests).toEqual(raw.manifests);
  });
});
