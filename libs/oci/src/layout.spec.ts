import { mkdtemp, readdir, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { digestHex } from './digest.js';
import { buildImage, MediaType } from './image.js';
import { buildImageIndex, isImageIndex } from './image-index.js';
import { layerFromEntries } from './layer.js';
import { openLayoutImage, readLayout, readLayoutEntry, readLayoutIndex, writeLayout } from './layout.js';

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'oci-layout-'));
  dirs.push(dir);
  return dir;
}
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

const imageA = buildImage([layerFromEntries([{ path: 'a.txt', content: 'a' }])], { labels: { name: 'a' } });
const imageB = buildImage([layerFromEntries([{ path: 'b.txt', content: 'b' }])], { labels: { name: 'b' } });

describe('writeLayout', () => {
  it('writes oci-layout, index.json with ref.name annotations and every blob', async () => {
    const dir = join(await tempDir(), 'layout');
    await writeLayout(dir, [
      { image: imageA, tag: 'v1' },
      { image: imageB, tag: 'v2' },
    ]);
    expect(JSON.parse(await readFile(join(dir, 'oci-layout'), 'utf8'))).toEqual({
      imageLayoutVersion: '1.0.0',
    });
    expect(JSON.parse(await readFile(join(dir, 'index.json'), 'utf8'))).toEqual({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.index.v1+json',
      manifests: [
        {
          mediaType: 'application/vnd.oci.image.manifest.v1+json',
          digest: imageA.digest,
          size: imageA.manifestBytes.byteLength,
          annotations: { 'org.opencontainers.image.ref.name': 'v1' },
        },
        {
          mediaType: 'application/vnd.oci.image.manifest.v1+json',
          digest: imageB.digest,
          size: imageB.manifestBytes.byteLength,
          annotations: { 'org.opencontainers.image.ref.name': 'v2' },
        },
      ],
    });
    const blobs = (await readdir(join(dir, 'blobs', 'sha256'))).sort();
    const expected = [imageA, imageB].flatMap((i) => [
      i.digest,
      i.manifest.config.digest,
      i.layers[0]!.descriptor.digest,
    ]);
    expect(blobs).toEqual(expected.map(digestHex).sort());
  });

  it('reads images back by tag, by digest, and alone', async () => {
    const dir = join(await tempDir(), 'layout');
    await writeLayout(dir, [
      { image: imageA, tag: 'v1' },
      { image: imageB, tag: 'v2' },
    ]);
    expect((await readLayout(dir, 'v2')).digest).toBe(imageB.digest);
    expect((await readLayout(dir, imageA.digest)).config.config?.Labels).toEqual({ name: 'a' });
    await expect(readLayout(dir)).rejects.toThrow(/2 manifests match the layout/);
    await expect(readLayout(dir, 'nope')).rejects.toMatchObject({ code: 'OCI_LAYOUT_INVALID' });
    const single = join(await tempDir(), 'single');
    await writeLayout(single, [{ image: imageA }]);
    const back = await readLayout(single);
    expect(Buffer.compare(Buffer.from(back.manifestBytes), Buffer.from(imageA.manifestBytes))).toBe(0);
  });

  it('replaces an existing layout atomically and leaves no temporary directories', async () => {
    const parent = await tempDir();
    const dir = join(parent, 'layout');
    await writeLayout(dir, [{ image: imageA, tag: 'v1' }]);
    await writeLayout(dir, [{ image: imageB, tag: 'v1' }]);
    expect((await readLayout(dir, 'v1')).digest).toBe(imageB.digest);
    expect(await readdir(parent)).toEqual(['layout']);
    expect((await readLayoutIndex(dir)).manifests).toHaveLength(1);
  });

  it('rejects duplicate tags without touching the target', async () => {
    const parent = await tempDir();
    const dir = join(parent, 'layout');
    await expect(
      writeLayout(dir, [
        { image: imageA, tag: 'x' },
        { image: imageB, tag: 'x' },
      ]),
    ).rejects.toThrow(/duplicate tag "x"/);
    expect(await readdir(parent)).toEqual([]);
  });

  it('detects corrupt blobs and missing layouts', async () => {
    const dir = join(await tempDir(), 'layout');
    await writeLayout(dir, [{ image: imageA, tag: 'v1' }]);
    await writeFile(join(dir, 'blobs', 'sha256', digestHex(imageA.layers[0]!.descriptor.digest)), 'garbage');
    await expect(readLayout(dir, 'v1')).rejects.toMatchObject({ code: 'OCI_DIGEST_MISMATCH' });
    await expect(readLayout(join(dir, 'nowhere'))).rejects.toThrow(/no oci-layout file/);
  });
});

describe('image indexes in layouts', () => {
  const imageArm = buildImage([layerFromEntries([{ path: 'a.txt', content: 'arm' }])], {
    architecture: 'arm64',
  });
  const multi = buildImageIndex([imageA, imageArm]);

  it('writes the index blob and every image, and index.json names the index', async () => {
    const dir = join(await tempDir(), 'layout');
    await writeLayout(dir, [{ image: multi, tag: 'v1' }]);
    expect((await readLayoutIndex(dir)).manifests).toEqual([
      {
        mediaType: MediaType.ociIndex,
        digest: multi.digest,
        size: multi.indexBytes.byteLength,
        annotations: { 'org.opencontainers.image.ref.name': 'v1' },
      },
    ]);
    const blobs = (await readdir(join(dir, 'blobs', 'sha256'))).sort();
    const expected = [
      multi.digest,
      ...[imageA, imageArm].flatMap((i) => [
        i.digest,
        i.manifest.config.digest,
        i.layers[0]!.descriptor.digest,
      ]),
    ];
    expect(blobs).toEqual(expected.map(digestHex).sort());
  });

  it('reads an index back with all or some of its platforms, and an image as an image', async () => {
    const dir = join(await tempDir(), 'layout');
    await writeLayout(dir, [
      { image: multi, tag: 'multi' },
      { image: imageB, tag: 'single' },
    ]);
    const back = await readLayoutEntry(dir, 'multi');
    if (!isImageIndex(back)) throw new Error('expected an index');
    expect(back.digest).toBe(multi.digest);
    expect(back.images.map((e) => e.image.digest)).toEqual([imageA.digest, imageArm.digest]);
    const arm = await readLayoutEntry(dir, multi.digest, { platforms: (p) => p.architecture === 'arm64' });
    expect(isImageIndex(arm) && arm.images.map((e) => e.image.digest)).toEqual([imageArm.digest]);
    expect((await readLayoutEntry(dir, 'single')).digest).toBe(imageB.digest);
    await expect(readLayout(dir, 'multi')).rejects.toThrow(/"multi" is a multi-platform image index/);
  });

  it('refuses to write an index that does not hold all its images', async () => {
    const parent = await tempDir();
    const partial = { ...multi, images: multi.images.slice(1) };
    await expect(writeLayout(join(parent, 'layout'), [{ image: partial }])).rejects.toMatchObject({
      code: 'OCI_INPUT_INVALID',
    });
    expect(await readdir(parent)).toEqual([]);
  });
});

describe('openLayoutImage', () => {
  /** Everything a layer's stream gives, or why it failed. */
  const readAll = async (stream: NodeJS.ReadableStream): Promise<Buffer> => {
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };

  it('reads manifest and config, and leaves the layers on disk to be read as streams', async () => {
    const dir = join(await tempDir(), 'layout');
    await writeLayout(dir, [{ image: imageA, tag: 'v1' }]);
    const image = await openLayoutImage(dir, 'v1');
    expect(image).toMatchObject({ digest: imageA.digest, manifest: imageA.manifest, config: imageA.config });
    expect(image.layers.map((l) => l.descriptor)).toEqual(imageA.layers.map((l) => l.descriptor));
    expect(await readAll(image.layers[0]!.open())).toEqual(Buffer.from(imageA.layers[0]!.bytes));
  });

  it('refuses a layer whose content is not its digest or size as it is read, and a missing one at once', async () => {
    const dir = join(await tempDir(), 'layout');
    await writeLayout(dir, [{ image: imageA, tag: 'v1' }]);
    const { digest, size } = imageA.layers[0]!.descriptor;
    const file = join(dir, 'blobs', 'sha256', digestHex(digest));
    const image = await openLayoutImage(dir, 'v1');
    const bytes = Buffer.from(imageA.layers[0]!.bytes);
    bytes[bytes.length - 1]! ^= 0xff;
    await writeFile(file, bytes);
    await expect(readAll(image.layers[0]!.open())).rejects.toMatchObject({
      code: 'OCI_DIGEST_MISMATCH',
      expected: digest,
    });
    await writeFile(file, Buffer.concat([bytes, Buffer.alloc(10)]));
    await expect(readAll(image.layers[0]!.open())).rejects.toThrow(
      `blob ${digest} holds more than the ${size} bytes its descriptor says`,
    );
    await truncate(file, 3);
    await expect(readAll(image.layers[0]!.open())).rejects.toThrow(
      `blob ${digest} holds 3 bytes, its descriptor says ${size}`,
    );
    await rm(file);
    await expect(openLayoutImage(dir, 'v1')).rejects.toThrow(`missing blob ${digest}`);
  });

  it('refuses an image index, as readLayout does', async () => {
    const dir = join(await tempDir(), 'layout');
    const index = buildImageIndex([
      imageA,
      buildImage([layerFromEntries([{ path: 'a.txt', content: 'arm' }])], { architecture: 'arm64' }),
    ]);
    await writeLayout(dir, [{ image: index, tag: 'multi' }]);
    await expect(openLayoutImage(dir, 'multi')).rejects.toThrow(
      'is a multi-platform image index, not a single image',
    );
  });
});
