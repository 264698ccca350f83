import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildImage, CATALOG_CONFIGS_LABEL, catalogImage, layerFromEntries, writeLayout } from '@opkit/oci';
import { unpackCatalogImage } from '@opkit/olm/action/catalog-image';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { rawLayer } from '../test/support/hostile-images.js';
import { resolveCatalogSource } from './catalog-source.js';

const scratch = mkdtempSync(join(tmpdir(), 'opkit-catalog-source-'));
// The unpacker's directories go to the temporary directory of this file alone (`os.tmpdir()` reads TMPDIR on
// each call; vitest runs each file in a process of its own): a shared one has other files' `opkit-serve-…`
// directories coming and going, which the counts below would take for this file's.
const privateTmp = join(scratch, 'tmp');
mkdirSync(privateTmp);
vi.stubEnv('TMPDIR', privateTmp);
afterAll(() => {
  vi.unstubAllEnvs();
  rmSync(scratch, { recursive: true, force: true });
});

async function catalogLayout(): Promise<string> {
  const configs = join(scratch, 'configs');
  mkdirSync(join(configs, 'demo'), { recursive: true });
  writeFileSync(join(configs, 'demo', 'catalog.yaml'), 'schema: olm.package\nname: demo\n'.repeat(20));
  const layout = join(scratch, 'layout');
  await writeLayout(layout, [{ image: await catalogImage(configs), tag: 'v1' }]);
  return layout;
}

const unpacked = () => readdirSync(privateTmp).filter((f) => f.startsWith('opkit-serve-')).length;

describe('catalog images as serve sources', () => {
  it('unpacks the catalog of an image layout, and removes it on dispose', async () => {
    const source = await resolveCatalogSource(await catalogLayout());
    expect(existsSync(join(source.dir, 'demo', 'catalog.yaml'))).toBe(true);
    expect(source.dir.startsWith(join(privateTmp, 'opkit-serve-'))).toBe(true);
    await source.dispose();
    expect(existsSync(source.dir)).toBe(false);
  });

  it('refuses an image that unpacks to more than its bounds, leaving nothing behind', async () => {
    const layout = await catalogLayout();
    const before = unpacked();
    await expect(resolveCatalogSource(layout, { limits: { maxBytes: 100 } })).rejects.toThrow(
      /cannot unpack layer sha256:\w+: it unpacks to more than 100 bytes \(at configs\/demo\/catalog\.yaml\)/,
    );
    await expect(resolveCatalogSource(layout, { limits: { maxEntries: 2 } })).rejects.toThrow(
      'it holds more than 2 entries',
    );
    expect(unpacked()).toBe(before);
  });

  it('refuses a layer that is not its digest as it is unpacked, leaving nothing behind', async () => {
    // Stored (level 0) gzip: other content of the same length gives a valid layer of the same size.
    const layer = (name: string) =>
      layerFromEntries(
        [{ path: 'configs/demo/catalog.yaml', content: `schema: olm.package\nname: ${name}\n` }],
        {
          compressionLevel: 0,
        },
      );
    const honest = layer('demo');
    const other = layer('omed');
    expect(other.size).toBe(honest.size);
    const layout = join(scratch, 'corrupt');
    await writeLayout(layout, [
      { image: buildImage([honest], { labels: { [CATALOG_CONFIGS_LABEL]: '/configs' } }), tag: 'v1' },
    ]);
    writeFileSync(join(layout, 'blobs', 'sha256', honest.gzDigest.slice('sha256:'.length)), other.bytes);
    const before = unpacked();
    await expect(resolveCatalogSource(layout)).rejects.toThrow(
      `cannot unpack layer ${honest.gzDigest}: digest mismatch for ${layout}:sha256:`,
    );
    expect(unpacked()).toBe(before);
  });

  it('refuses a configs label that leads out of the image, leaving nothing behind', async () => {
    const before = unpacked();
    for (const configs of ['/../..', '/configs/up/..']) {
      const image = buildImage(
        [
          rawLayer([
            { path: 'configs/demo/catalog.yaml', type: 'file', content: 'schema: olm.package\nname: demo\n' },
            { path: 'configs/up', type: 'symlink', target: '..' },
          ]),
        ],
        { labels: { [CATALOG_CONFIGS_LABEL]: configs } },
      );
      await expect(unpackCatalogImage(image, 'hostile')).rejects.toThrow(
        `hostile: ${configs} (${CATALOG_CONFIGS_LABEL}) leads out of the image`,
      );
    }
    expect(unpacked()).toBe(before);
  });
});
