import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildImage } from './image.js';
import { buildImageIndex, isImageIndex } from './image-index.js';
import { formatImageSource, loadImageSource, parseImageSource } from './image-source.js';
import { layerFromEntries } from './layer.js';
import { writeLayout } from './layout.js';

let dir: string;
const amd = buildImage([layerFromEntries([{ path: 'x', content: 'a' }])], { architecture: 'amd64' });
const arm = buildImage([layerFromEntries([{ path: 'x', content: 'b' }])], { architecture: 'arm64' });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'oci-source-'));
  await writeLayout(join(dir, 'base'), [
    { image: buildImageIndex([amd, arm]), tag: 'registry.example/base:1.0' },
    { image: amd, tag: 'amd' },
  ]);
  await mkdir(join(dir, 'empty'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('parseImageSource', () => {
  it('tells layouts (with refs holding ":" and "/") from registry references', async () => {
    const base = join(dir, 'base');
    expect(await parseImageSource(base)).toEqual({ kind: 'layout', dir: base });
    expect(await parseImageSource(`${base}:amd`)).toEqual({ kind: 'layout', dir: base, ref: 'amd' });
    expect(await parseImageSource(`${base}:registry.example/base:1.0`)).toEqual({
      kind: 'layout',
      dir: base,
      ref: 'registry.example/base:1.0',
    });
    expect(await parseImageSource(`oci:${base}:amd`)).toEqual({ kind: 'layout', dir: base, ref: 'amd' });
    expect(await parseImageSource('gcr.io/distroless/nodejs24-debian12:nonroot')).toEqual({
      kind: 'registry',
      reference: 'gcr.io/distroless/nodejs24-debian12:nonroot',
    });
    expect(formatImageSource({ kind: 'layout', dir: base, ref: 'amd' })).toBe(`oci:${base}:amd`);
  });

  it('says which path holds no layout, and rejects malformed references', async () => {
    await expect(parseImageSource(join(dir, 'empty'))).rejects.toThrow(/empty: no oci-layout file/);
    await expect(parseImageSource(`oci:${join(dir, 'nowhere')}:x`)).rejects.toMatchObject({
      code: 'OCI_LAYOUT_INVALID',
    });
    await expect(parseImageSource('Not A Reference')).rejects.toMatchObject({
      code: 'OCI_REFERENCE_INVALID',
    });
  });
});

describe('loadImageSource', () => {
  it('reads an index or an image from a layout', async () => {
    const index = await loadImageSource(`${join(dir, 'base')}:registry.example/base:1.0`, {
      platforms: (p) => p.architecture === 'arm64',
    });
    expect(isImageIndex(index) && index.images.map((e) => e.image.digest)).toEqual([arm.digest]);
    expect((await loadImageSource(`${join(dir, 'base')}:amd`)).digest).toBe(amd.digest);
  });

  it('needs a client for a registry source', async () => {
    await expect(loadImageSource('registry.example/x:1')).rejects.toThrow(/needs a RegistryClient/);
  });
});
