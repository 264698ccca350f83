import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gunzipSync, gzipSync } from 'node:zlib';
import { buildImage, type LayoutImage } from '@opkit/oci';
import { unpackImageLayers } from '@opkit/olm/action/image-unpack';
import { afterAll, describe, expect, it } from 'vitest';
import { catalogImageOf, ESCAPING_LAYERS, type RawEntry, rawLayer } from '../test/support/hostile-images.js';

const scratch = mkdtempSync(join(tmpdir(), 'opkit-unpack-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('unpackImageLayers', () => {
  it('unpacks an honest layer', async () => {
    const root = join(scratch, 'honest', 'root');
    mkdirSync(root, { recursive: true });
    await unpackImageLayers(catalogImageOf(ESCAPING_LAYERS['a ../ path']!.slice(0, 1)), root);
    expect(existsSync(join(root, 'configs', 'demo', 'catalog.yaml'))).toBe(true);
  });

  it.each(Object.entries(ESCAPING_LAYERS))(
    'refuses a layer with %s, and writes nothing outside',
    async (kind, entries) => {
      const outer = join(scratch, kind.replaceAll(/\W+/g, '-'));
      const root = join(outer, 'a', 'b', 'root');
      mkdirSync(root, { recursive: true });
      await expect(unpackImageLayers(catalogImageOf(entries), root)).rejects.toThrow(
        /leaves the image root|points out of the image/,
      );
      expect(readdirSync(outer)).toEqual(['a']);
      expect(readdirSync(join(outer, 'a', 'b'))).toEqual(['root']);
      expect(existsSync(join(root, 'configs', 'host'))).toBe(false);
    },
  );

  const PACKAGE = 'schema: olm.package\nname: demo\n';
  /** Made backwards, each link dangles when made and stays inside on paper: `u0`, made last, completes the climb. */
  const backwards: RawEntry[] = [
    { path: 'configs/demo/catalog.yaml', type: 'file', content: PACKAGE },
    { path: 'configs/secret.yaml', type: 'symlink', target: 'u2/secret.yaml' },
    { path: 'configs/u2', type: 'symlink', target: 'u1/..' },
    { path: 'configs/u1', type: 'symlink', target: 'u0/..' },
  ];
  const completes: RawEntry[] = [{ path: 'configs/u0', type: 'symlink', target: '..' }];

  const unpackInto = async (name: string, layers: readonly (readonly RawEntry[])[]) => {
    const outer = join(scratch, name);
    const root = join(outer, 'a', 'b', 'root');
    mkdirSync(root, { recursive: true });
    const image = buildImage(layers.map((entries) => rawLayer(entries)));
    const error = await unpackImageLayers(image, root).then(
      () => undefined,
      (e: Error) => e.message,
    );
    return { error, image, outer };
  };

  it('refuses a link that leads out once a later layer completes its chain, naming the layer that made it', async () => {
    const { error, image, outer } = await unpackInto('backwards', [backwards, completes]);
    expect(error).toBe(
      `layer ${image.layers[0]?.descriptor.digest}: symlink "configs/secret.yaml" points out of the image (u2/secret.yaml)`,
    );
    expect(readdirSync(outer)).toEqual(['a']);
  });

  it('refuses an entry written through a link that leads out, and writes nothing there', async () => {
    const pwned: RawEntry = { path: 'configs/u2/pwned.yaml', type: 'file', content: PACKAGE };
    const { error, outer } = await unpackInto('through', [[...backwards, ...completes, pwned]]);
    expect(error).toMatch(/: entry "configs\/u2\/pwned\.yaml" leads out of the image through a symlink$/);
    expect(readdirSync(outer)).toEqual(['a']);
    expect(readdirSync(join(outer, 'a'))).toEqual(['b']);
  });

  it('refuses a hard link to a symlink that, from its own directory, leads out', async () => {
    const { error } = await unpackInto('hard-to-soft', [
      [
        { path: 'configs/demo/root', type: 'symlink', target: '../..' },
        { path: 'configs/up', type: 'hardlink', target: 'configs/demo/root' },
      ],
    ]);
    expect(error).toMatch(/: symlink "configs\/up" points out of the image \(\.\.\/\.\.\)$/);
  });

  it('does not create devices or FIFOs', async () => {
    const { error, outer } = await unpackInto('special', [
      [
        { path: 'configs/demo/catalog.yaml', type: 'file', content: PACKAGE },
        { path: 'configs/demo/zero.yaml', type: 'chardev' },
        { path: 'configs/demo/fifo.yaml', type: 'fifo' },
      ],
    ]);
    expect(error).toBeUndefined();
    expect(readdirSync(join(outer, 'a', 'b', 'root', 'configs', 'demo'))).toEqual(['catalog.yaml']);
  });

  it('refuses at once an entry whose path is a megabyte of components, naming the layer', async () => {
    // 400,000 `a/` components: resolving each against the path before it took half an hour.
    const path = `${'a/'.repeat(400_000)}catalog.yaml`;
    const started = performance.now();
    const { error, image } = await unpackInto('long-path', [[{ path, type: 'file', content: PACKAGE }]]);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(error).toBe(
      `layer ${image.layers[0]?.descriptor.digest}: entry "${'a/'.repeat(32)}…" has a path of 800012 bytes (at most 4096)`,
    );
  });

  it('refuses an entry of more than 256 path components within the byte limit', async () => {
    const { error, image } = await unpackInto('deep-path', [
      [{ path: `${'a/'.repeat(300)}catalog.yaml`, type: 'file', content: PACKAGE }],
    ]);
    expect(error).toBe(
      `layer ${image.layers[0]?.descriptor.digest}: entry "${'a/'.repeat(32)}…" has 301 path components (at most 256)`,
    );
  });

  it('closes the file it was writing when a layer fails mid-file', async () => {
    const tar = gunzipSync(
      rawLayer([{ path: 'configs/demo/catalog.yaml', type: 'file', content: 'x'.repeat(64 * 1024) }]).bytes,
    );
    /** A layer read from a layout whose stream fails after the header and part of the file. */
    const failing = {
      layers: [
        {
          descriptor: { digest: 'sha256:cut' },
          open: () =>
            Readable.from(
              (async function* () {
                yield tar.subarray(0, 512 + 8192);
                throw new Error('connection reset');
              })(),
            ),
        },
      ],
    } as unknown as LayoutImage; // only the layers' digests and streams are read
    const openFds = () => readdirSync('/proc/self/fd').length;
    const before = openFds();
    for (let i = 0; i < 20; i++) {
      const root = join(scratch, `cut-${i}`);
      mkdirSync(root);
      await expect(unpackImageLayers(failing, root)).rejects.toThrow('layer sha256:cut: connection reset');
      expect(existsSync(join(root, 'configs', 'demo', 'catalog.yaml'))).toBe(true);
    }
    // Twenty layers each left one descriptor open before; a few may come and go with the runner.
    expect(openFds() - before).toBeLessThan(5);
  });

  it('refuses a malformed layer, naming it', async () => {
    const layer = rawLayer([{ path: 'configs/demo/catalog.yaml', type: 'file', content: PACKAGE }]);
    const tar = gunzipSync(layer.bytes);
    tar[148] ^= 0x01; // the header's checksum no longer matches
    const broken = { ...layer, bytes: new Uint8Array(gzipSync(tar)) };
    const root = join(scratch, 'malformed');
    mkdirSync(root);
    const image = buildImage([broken]);
    await expect(unpackImageLayers(image, root)).rejects.toThrow(
      `layer ${image.layers[0]?.descriptor.digest}: TAR_ENTRY_INVALID: checksum failure`,
    );
  });
});
