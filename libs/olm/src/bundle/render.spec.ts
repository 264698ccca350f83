import { describe, expect, it } from 'vitest';
import { renderBundle } from './render.js';

const corpus = (name: string) => new URL(`../../test/bundle/corpus/${name}`, import.meta.url).pathname;

describe('renderBundle', () => {
  it('renders a bundle directory as opm does: no image, sorted properties, objects last', () => {
    const blob = renderBundle(corpus('valid-minimal'));
    expect({ ...blob, properties: blob.properties.map((p) => p.type) }).toStrictEqual({
      schema: 'olm.bundle',
      name: 'widget-operator.v0.1.0',
      package: 'widget-operator',
      image: '',
      properties: ['olm.gvk', 'olm.package', 'olm.bundle.object', 'olm.bundle.object'],
      relatedImages: [{ name: 'manager', image: 'registry.example/widget-operator:0.1.0' }],
    });
    expect(blob.properties.slice(0, 2)).toStrictEqual([
      { type: 'olm.gvk', value: { group: 'example.com', kind: 'Widget', version: 'v1' } },
      { type: 'olm.package', value: { packageName: 'widget-operator', version: '0.1.0' } },
    ]);
    const objects = blob.properties
      .filter((p) => p.type === 'olm.bundle.object')
      .map(
        (p) =>
          JSON.parse(Buffer.from((p.value as { data: string }).data, 'base64').toString('utf8')) as {
            kind: string;
          },
      );
    expect(objects.map((o) => o.kind).sort()).toStrictEqual([
      'ClusterServiceVersion',
      'CustomResourceDefinition',
    ]);
  });

  it('adds the bundle image and replaces objects by CSV metadata when migrating', () => {
    const blob = renderBundle(corpus('valid-minimal'), {
      image: 'registry.example/widget-bundle:v0.1.0',
      migrateLevel: 'bundle-object-to-csv-metadata',
    });
    expect(blob.properties.map((p) => p.type)).toStrictEqual(['olm.gvk', 'olm.package', 'olm.csv.metadata']);
    expect(blob.relatedImages).toStrictEqual([
      { name: '', image: 'registry.example/widget-bundle:v0.1.0' },
      { name: 'manager', image: 'registry.example/widget-operator:0.1.0' },
    ]);
  });

  it('refuses a bundle whose owned CRD is missing', () => {
    expect(() => renderBundle(corpus('owned-crd-missing'))).toThrow(
      /owned CRD widgets\.example\.com v1 Widget is not in the bundle/,
    );
  });
});
