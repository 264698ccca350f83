import { describe, expect, it } from 'vitest';
import { migrateCatalog, parseMigrationLevel } from './migrations.js';
import { type BundleBlob, emptyCatalog } from './types.js';
import { serializeCatalog } from './write.js';

// The migrations on their own; tools/opkit/test/render-images.spec.ts compares them with opm's on images.

const csv = {
  apiVersion: 'operators.coreos.com/v1alpha1',
  kind: 'ClusterServiceVersion',
  metadata: { name: 'widget.v0.1.0', annotations: { b: '2', a: '1' } },
  spec: {
    displayName: 'Widget',
    customresourcedefinitions: { owned: [{ version: 'v1', kind: 'W', name: 'ws.x.io' }] },
  },
};
const object = (o: unknown) => ({
  type: 'olm.bundle.object',
  value: { data: Buffer.from(JSON.stringify(o)).toString('base64') },
});

function bundle(image: string, extra: BundleBlob['properties'] = []): BundleBlob {
  return {
    schema: 'olm.bundle',
    name: 'widget.v0.1.0',
    package: 'widget',
    image,
    properties: [
      object({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's' } }),
      object(csv),
      { type: 'olm.package', value: { packageName: 'widget', version: '0.1.0' } },
      ...extra,
    ],
  };
}

describe('catalog migrations', () => {
  it('replaces the bundle objects of a bundle with an image by the CSV metadata, in opm’s field order', () => {
    const migrated = migrateCatalog(
      { ...emptyCatalog(), bundles: [bundle('quay.io/acme/widget-bundle:v0.1.0')] },
      'bundle-object-to-csv-metadata',
    );
    const [b] = migrated.bundles;
    expect(b?.properties.map((p) => p.type)).toEqual(['olm.package', 'olm.csv.metadata']);
    const json = serializeCatalog(migrated, { format: 'json' });
    // struct fields in declaration order (name, version, kind), map keys sorted
    expect(json).toMatch(/"name": "ws.x.io",\s+"version": "v1",\s+"kind": "W"/);
    expect(json).toMatch(/"a": "1",\s+"b": "2"/);
  });

  it('keeps bundles without an image, with a CSV metadata already, or at level none', () => {
    const withoutImage = bundle('');
    const withMetadata = bundle('quay.io/acme/widget-bundle:v0.1.0', [
      { type: 'olm.csv.metadata', value: {} },
    ]);
    const catalog = { ...emptyCatalog(), bundles: [withoutImage, withMetadata] };
    expect(migrateCatalog(catalog, 'bundle-object-to-csv-metadata').bundles).toEqual([
      withoutImage,
      withMetadata,
    ]);
    const imaged = { ...emptyCatalog(), bundles: [bundle('quay.io/acme/widget-bundle:v0.1.0')] };
    expect(migrateCatalog(imaged, 'none')).toEqual(imaged);
  });

  it('reads a level by name, all as the last one, and names the levels when it does not know one', () => {
    expect(parseMigrationLevel('all')).toBe('bundle-object-to-csv-metadata');
    expect(parseMigrationLevel('none')).toBe('none');
    expect(() => parseMigrationLevel('newest')).toThrow(
      'unknown migration level "newest" (one of: none, bundle-object-to-csv-metadata, all)',
    );
  });
});
