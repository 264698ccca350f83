import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sha256Digest } from './digest.js';
import { buildImage, MediaType } from './image.js';
import { buildImageIndex, imagePlatforms } from './image-index.js';
import { readImageSourcePlatforms } from './image-source.js';
import { layerFromEntries } from './layer.js';
import { readLayoutPlatforms, writeLayout } from './layout.js';

const image = (architecture: string) =>
  buildImage([layerFromEntries([{ path: 'arch', content: architecture }])], { architecture });

const scratch = mkdtempSync(join(tmpdir(), 'oci-platforms-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('readLayoutPlatforms', () => {
  it("gives an index's platforms in index order", async () => {
    const dir = join(scratch, 'index');
    const index = buildImageIndex([image('amd64'), image('arm64'), image('s390x')]);
    await writeLayout(dir, [{ image: index, tag: '1.0.0' }]);
    expect(await readLayoutPlatforms(dir, '1.0.0')).toEqual({
      digest: index.digest,
      index: true,
      platforms: [
        { os: 'linux', architecture: 'amd64' },
        { os: 'linux', architecture: 'arm64' },
        { os: 'linux', architecture: 's390x' },
      ],
    });
  });

  it("gives a single image's platform from its config", async () => {
    const dir = join(scratch, 'single');
    const single = image('arm64');
    await writeLayout(dir, [{ image: single }]);
    expect(await readImageSourcePlatforms(dir)).toEqual({
      digest: single.digest,
      index: false,
      platforms: [{ os: 'linux', architecture: 'arm64' }],
    });
  });

  it('refuses a document larger than a manifest may be before reading it', async () => {
    const dir = join(scratch, 'large');
    await writeLayout(dir, [{ image: image('amd64') }]);
    const huge = { mediaType: MediaType.ociManifest, digest: sha256Digest(Buffer.from('x')), size: 5 << 20 };
    writeFileSync(join(dir, 'index.json'), JSON.stringify({ schemaVersion: 2, manifests: [huge] }));
    await expect(readLayoutPlatforms(dir)).rejects.toThrow(/larger than 4194304 bytes/);
  });
});

describe('imagePlatforms', () => {
  it('leaves out attestations (unknown/unknown) and artifacts, as they are no platform to run on', async () => {
    const amd = image('amd64');
    const index = {
      schemaVersion: 2,
      mediaType: MediaType.ociIndex,
      manifests: [
        {
          mediaType: amd.mediaType,
          digest: amd.digest,
          size: 1,
          platform: { os: 'linux', architecture: 'amd64' },
        },
        {
          mediaType: MediaType.ociManifest,
          digest: sha256Digest(Buffer.from('attestation')),
          size: 1,
          platform: { os: 'unknown', architecture: 'unknown' },
        },
        { mediaType: 'application/vnd.example.sbom', digest: sha256Digest(Buffer.from('sbom')), size: 1 },
      ],
    };
    const read = {
      manifest: async () => {
        throw new Error('no manifest is read when the index names the platforms');
      },
      config: async () => {
        throw new Error('no config is read when the index names the platforms');
      },
    };
    const bytes = Buffer.from(JSON.stringify(index));
    expect((await imagePlatforms(bytes, MediaType.ociIndex, 'test', read)).platforms).toEqual([
      { os: 'linux', architecture: 'amd64' },
    ]);
  });
});
