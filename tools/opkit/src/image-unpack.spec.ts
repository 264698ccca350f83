import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { catalogImageOf, ESCAPING_LAYERS } from '../test/support/hostile-images.js';
import { unpackImageLayers } from './image-unpack.js';

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
});
