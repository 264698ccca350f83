import { parseCatalogContent, readBundleObjects, validateCatalog } from '@opkit/olm';
import { describe, expect, it } from 'vitest';
import { communityCatalog } from './community-catalog.js';

describe('the community-shaped catalog', () => {
  const { files, catalog } = communityCatalog();
  const bytes = [...files.values()].reduce((sum, c) => sum + Buffer.byteLength(c), 0);

  it('has the advertised shape: 30–40 packages, YAML and JSON files, 10–20 MB', () => {
    expect(catalog.packages.length).toBeGreaterThanOrEqual(30);
    expect(catalog.packages.length).toBeLessThanOrEqual(40);
    const paths = [...files.keys()];
    expect(paths.filter((p) => p.endsWith('/catalog.yaml')).length).toBeGreaterThan(10);
    expect(paths.filter((p) => p.endsWith('/catalog.json')).length).toBeGreaterThan(10);
    expect(bytes).toBeGreaterThan(10e6);
    expect(bytes).toBeLessThan(20e6);
  });

  it('carries each bundle as a CSV of 20–200 KB and CRDs of 50–500 KB, inline', () => {
    for (const bundle of catalog.bundles) {
      const { objects, csv } = readBundleObjects(bundle);
      expect(csv?.kind).toBe('ClusterServiceVersion');
      for (const text of objects) {
        const kind = (JSON.parse(text) as { kind: string }).kind;
        const [min, max] = kind === 'ClusterServiceVersion' ? [20e3, 200e3] : [50e3, 500e3];
        expect(text.length, `${bundle.name} ${kind}`).toBeGreaterThanOrEqual(min);
        expect(text.length, `${bundle.name} ${kind}`).toBeLessThanOrEqual(max * 1.1);
      }
    }
  });

  it('is a valid catalog, read back from its files as written', () => {
    expect(validateCatalog(catalog).filter((r) => r.level === 'error')).toEqual([]);
    for (const [path, content] of files) {
      expect(parseCatalogContent(content, path).bundles.length).toBeGreaterThan(0);
    }
  });

  it('is the same bytes for the same seed', () => {
    expect(communityCatalog().files).toEqual(files);
    expect(communityCatalog({ seed: 2 }).files).not.toEqual(files);
  });
});
