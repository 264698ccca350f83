import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCatalogContent } from '../catalog/declcfg/load.js';
import { readBundleObjects } from '../catalog/declcfg/properties.js';
import { emptyCatalog } from '../catalog/declcfg/types.js';
import { serializeCatalog } from '../catalog/declcfg/write.js';
import { toCatalogBundle } from './catalog-bundle.js';
import { formatOlmBundleJson, type OlmBundleBlob, type RenderBundleOptions, renderBundle } from './render.js';

const corpusDir = new URL('../../test/bundle/corpus', import.meta.url).pathname;

/** Every corpus bundle opm renders, rendered with each set of options. */
function renderedCorpus(options: RenderBundleOptions): [string, OlmBundleBlob][] {
  return readdirSync(corpusDir)
    .filter((name) => statSync(join(corpusDir, name)).isDirectory())
    .flatMap((name): [string, OlmBundleBlob][] => {
      try {
        return [[name, renderBundle(join(corpusDir, name), options)]];
      } catch {
        return [];
      }
    });
}

describe('toCatalogBundle', () => {
  const cases: [string, RenderBundleOptions][] = [
    ['a directory', {}],
    [
      'an image, migrated to CSV metadata',
      { image: 'registry.example/b@sha256:00', migrateLevel: 'bundle-object-to-csv-metadata' },
    ],
  ];
  for (const [what, options] of cases) {
    it(`gives the blob loading opm's JSON of the rendered bundle gives, for ${what}`, () => {
      const rendered = renderedCorpus(options);
      expect(rendered.length).toBeGreaterThan(20);
      for (const [name, blob] of rendered) {
        const source = { file: name, index: 0 };
        const loaded = parseCatalogContent(formatOlmBundleJson(blob), name).bundles[0];
        const converted = toCatalogBundle(blob, source);
        expect(converted, name).toStrictEqual(loaded);
        expect(readBundleObjects(converted), name).toStrictEqual(readBundleObjects(loaded!));
        const written = (bundle: typeof converted) =>
          serializeCatalog({ ...emptyCatalog(), bundles: [bundle] }, { format: 'json' });
        expect(written(converted), name).toBe(written(loaded!));
      }
    });
  }
});
