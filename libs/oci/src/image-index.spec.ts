import { describe, expect, it } from 'vitest';
import { sha256Digest } from './digest.js';
import { buildImage, type Descriptor, MediaType, type OciImage } from './image.js';
import {
  assembleImageIndex,
  buildImageIndex,
  formatPlatform,
  imagePlatform,
  isImageIndex,
  parsePlatform,
} from './image-index.js';
import { layerFromEntries } from './layer.js';

const amd = buildImage([layerFromEntries([{ path: 'a', content: 'amd64' }])], { architecture: 'amd64' });
const arm = buildImage([layerFromEntries([{ path: 'a', content: 'arm64' }])], { architecture: 'arm64' });

/** A blob store of `images`, for assembleImageIndex. */
function store(...images: OciImage[]): (d: Descriptor) => Promise<Uint8Array> {
  const blobs = new Map<string, Uint8Array>();
  for (const image of images) {
    blobs.set(image.digest, image.manifestBytes);
    blobs.set(image.manifest.config.digest, image.configBytes);
    for (const layer of image.layers) blobs.set(layer.descriptor.digest, layer.bytes);
  }
  return async (d) => {
    const bytes = blobs.get(d.digest);
    if (bytes === undefined) throw new Error(`fetched ${d.digest}`);
    return bytes;
  };
}

describe('buildImageIndex', () => {
  it('lists each image with the platform of its config, in order, with a fixed key order', () => {
    const index = buildImageIndex([amd, arm], { annotations: { z: '1', a: '2' } });
    expect(Buffer.from(index.indexBytes).toString()).toBe(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: MediaType.ociIndex,
        manifests: [amd, arm].map((image) => ({
          mediaType: MediaType.ociManifest,
          digest: image.digest,
          size: image.manifestBytes.byteLength,
          platform: { architecture: image.config.architecture, os: 'linux' },
        })),
        annotations: { a: '2', z: '1' },
      }),
    );
    expect(index.digest).toBe(sha256Digest(index.indexBytes));
    expect(index.images.map((e) => formatPlatform(e.platform))).toEqual(['linux/amd64', 'linux/arm64']);
    expect(isImageIndex(index)).toBe(true);
    expect(isImageIndex(amd)).toBe(false);
    expect(buildImageIndex([amd, arm], { annotations: { a: '2', z: '1' } }).digest).toBe(index.digest);
  });

  it('refuses an empty list and two images of one platform', () => {
    expect(() => buildImageIndex([])).toThrow(/at least one image/);
    expect(() => buildImageIndex([amd, amd])).toThrow(/two images of the index are for linux\/amd64/);
  });
});

describe('platforms', () => {
  it('parses and formats os/architecture[/variant]', () => {
    expect(parsePlatform('linux/arm/v7')).toEqual({ os: 'linux', architecture: 'arm', variant: 'v7' });
    expect(formatPlatform(parsePlatform('linux/amd64'))).toBe('linux/amd64');
    expect(() => parsePlatform('linux')).toThrow(/not os\/architecture/);
    expect(() => parsePlatform('linux/arm/v7/x')).toThrow(/not os\/architecture/);
    // Upper case would become a label such as arch.AMD64 and a node affinity no node matches.
    expect(() => parsePlatform('Linux/AMD64')).toThrow(
      'platform "Linux/AMD64" is not os/architecture[/variant] in lower case',
    );
    expect(imagePlatform(arm)).toEqual({ os: 'linux', architecture: 'arm64' });
  });
});

describe('assembleImageIndex', () => {
  const built = buildImageIndex([amd, arm]);

  it('reads every image, verifying digests', async () => {
    const fetch = store(amd, arm);
    const index = await assembleImageIndex(built.indexBytes, 'test', { manifest: fetch, blob: fetch });
    expect(index.digest).toBe(built.digest);
    expect(index.images.map((e) => e.image.digest)).toEqual([amd.digest, arm.digest]);
  });

  it('fetches only the platforms the filter accepts', async () => {
    const fetch = store(arm); // amd64 blobs would throw if fetched
    const index = await assembleImageIndex(
      built.indexBytes,
      'test',
      { manifest: fetch, blob: fetch },
      undefined,
      { platforms: (p) => p.architecture === 'arm64' },
    );
    expect(index.images.map((e) => e.platform.architecture)).toEqual(['arm64']);
  });

  it('judges entries without a platform by their config, and skips artifacts', async () => {
    const bytes = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: MediaType.ociIndex,
        manifests: [
          { mediaType: MediaType.ociManifest, digest: amd.digest, size: amd.manifestBytes.byteLength },
          { mediaType: 'application/vnd.example.sig', digest: sha256Digest(new Uint8Array()), size: 0 },
        ],
      }),
    );
    const fetch = store(amd);
    const all = await assembleImageIndex(bytes, 'test', { manifest: fetch, blob: fetch });
    expect(all.images.map((e) => e.platform)).toEqual([{ architecture: 'amd64', os: 'linux' }]);
    const none = await assembleImageIndex(bytes, 'test', { manifest: fetch, blob: fetch }, undefined, {
      platforms: (p) => p.architecture === 'arm64',
    });
    expect(none.images).toEqual([]);
  });

  it('refuses a nested index and a manifest that does not match its digest', async () => {
    const nested = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        manifests: [{ mediaType: MediaType.ociIndex, digest: built.digest, size: built.indexBytes.length }],
      }),
    );
    const fetch = store(amd, arm);
    await expect(assembleImageIndex(nested, 'test', { manifest: fetch, blob: fetch })).rejects.toThrow(
      /nested image index/,
    );
    const wrong = async (): Promise<Uint8Array> => arm.manifestBytes;
    await expect(
      assembleImageIndex(built.indexBytes, 'test', { manifest: wrong, blob: fetch }),
    ).rejects.toMatchObject({ code: 'OCI_DIGEST_MISMATCH' });
  });
});
