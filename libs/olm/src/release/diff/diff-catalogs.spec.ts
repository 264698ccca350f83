import { describe, expect, it } from 'vitest';
import { parseCatalogContent } from '../../catalog/declcfg/load.js';
import type { CatalogModel } from '../../catalog/model/catalog-model.js';
import { convertToModel } from '../../catalog/model/convert-to-model.js';
import { diffFindings } from './changes.js';
import { diffCatalogs } from './diff-catalogs.js';

type Blob = Record<string, unknown>;

/** A catalog's model from its blobs, failing the test on any blob that does not convert. */
function model(blobs: readonly Blob[]): CatalogModel {
  const problems: string[] = [];
  const result = convertToModel(
    parseCatalogContent(blobs.map((b) => JSON.stringify(b)).join('\n')),
    (_c, m) => problems.push(m),
  );
  expect(problems).toEqual([]);
  return result;
}

const base64 = (object: unknown) => Buffer.from(JSON.stringify(object)).toString('base64');

function bundle(
  version: string,
  extra: { properties?: Blob[]; image?: string; relatedImages?: Blob[] } = {},
): Blob {
  return {
    schema: 'olm.bundle',
    name: `demo.v${version}`,
    package: 'demo',
    image: extra.image ?? `example.com/demo-bundle:v${version}`,
    properties: [
      { type: 'olm.package', value: { packageName: 'demo', version } },
      ...(extra.properties ?? []),
    ],
    ...(extra.relatedImages === undefined ? {} : { relatedImages: extra.relatedImages }),
  };
}

const pkg = (defaultChannel = 'stable'): Blob => ({ schema: 'olm.package', name: 'demo', defaultChannel });

function channel(name: string, entries: Blob[]): Blob {
  return { schema: 'olm.channel', package: 'demo', name, entries };
}

/** demo 1.0.0 → 1.1.0 in `stable`. */
const twoVersions = (): Blob[] => [
  pkg(),
  channel('stable', [{ name: 'demo.v1.0.0' }, { name: 'demo.v1.1.0', replaces: 'demo.v1.0.0' }]),
  bundle('1.0.0'),
  bundle('1.1.0'),
];

describe('diffCatalogs', () => {
  it('finds nothing between a catalog and itself, or one with its blobs and keys in another order', () => {
    const blobs = twoVersions();
    expect(diffCatalogs(model(blobs), model(blobs))).toEqual({ packages: [] });
    const reordered = [...blobs].reverse().map((b) => Object.fromEntries(Object.entries(b).reverse()));
    expect(diffCatalogs(model(blobs), model(reordered))).toEqual({ packages: [] });
  });

  it('compares property values canonically: key order inside a value does not matter, values do', () => {
    const gvk = (value: Blob) => bundle('1.1.0', { properties: [{ type: 'olm.gvk', value }] });
    const before = model([
      ...twoVersions().slice(0, 3),
      gvk({ group: 'demo.io', kind: 'Demo', version: 'v1' }),
    ]);
    const sameValue = model([
      ...twoVersions().slice(0, 3),
      gvk({ version: 'v1', kind: 'Demo', group: 'demo.io' }),
    ]);
    expect(diffCatalogs(before, sameValue).packages).toEqual([]);
    const otherValue = model([
      ...twoVersions().slice(0, 3),
      gvk({ group: 'demo.io', kind: 'Demo', version: 'v2' }),
    ]);
    const [diff] = diffCatalogs(before, otherValue).packages;
    expect(diff?.bundles[0]?.properties).toEqual([
      {
        type: 'olm.gvk',
        added: [],
        removed: [],
        changed: {
          from: '{"group":"demo.io","kind":"Demo","version":"v1"}',
          to: '{"group":"demo.io","kind":"Demo","version":"v2"}',
          fields: ['version'],
        },
      },
    ]);
  });

  it('reports a new version: its bundle, channel entry and the replaces edge to it', () => {
    const before = model(twoVersions());
    const after = model([
      pkg(),
      channel('stable', [
        { name: 'demo.v1.0.0' },
        { name: 'demo.v1.1.0', replaces: 'demo.v1.0.0' },
        { name: 'demo.v1.2.0', replaces: 'demo.v1.1.0', skips: ['demo.v1.0.0'] },
      ]),
      bundle('1.0.0'),
      bundle('1.1.0'),
      bundle('1.2.0'),
    ]);
    const [diff] = diffCatalogs(before, after).packages;
    expect(diff).toMatchObject({
      name: 'demo',
      status: 'changed',
      bundlesAdded: [{ name: 'demo.v1.2.0', version: '1.2.0' }],
      bundlesRemoved: [],
      channels: [
        {
          name: 'stable',
          entriesAdded: ['demo.v1.2.0'],
          entriesRemoved: [],
          edgesAdded: [
            { from: 'demo.v1.0.0', to: 'demo.v1.2.0', kind: 'skips' },
            { from: 'demo.v1.1.0', to: 'demo.v1.2.0', kind: 'replaces' },
          ],
          edgesRemoved: [],
        },
      ],
    });
    expect(diffFindings(diffCatalogs(before, after)).map((f) => `${f.severity} ${f.rule}`)).toEqual([
      'info diff/bundle-added',
      'info diff/entry-added',
      'info diff/edge-added',
      'info diff/edge-added',
    ]);
  });

  it('reports a removed bundle, channel and a changed default channel as warnings', () => {
    const before = model([...twoVersions(), channel('fast', [{ name: 'demo.v1.1.0' }])]);
    const after = model([
      pkg('candidate'),
      channel('stable', [{ name: 'demo.v1.1.0' }]),
      channel('candidate', [{ name: 'demo.v1.1.0' }]),
      bundle('1.1.0'),
    ]);
    const findings = diffFindings(diffCatalogs(before, after));
    expect(findings.filter((f) => f.severity === 'warning').map((f) => f.message)).toEqual([
      'demo: bundle demo.v1.0.0 (1.0.0) removed',
      'demo: default channel "stable" → "candidate"',
      'demo: channel fast removed',
    ]);
    expect(findings.map((f) => f.rule)).toContain('diff/channel-added');
    expect(findings.map((f) => f.rule)).toContain('diff/edge-removed');
    expect(findings.every((f) => f.severity !== 'error')).toBe(true);
  });

  it('reports skipRange changes and the skipRange edges they add', () => {
    const before = model(twoVersions());
    const after = model([
      pkg(),
      channel('stable', [
        { name: 'demo.v1.0.0' },
        { name: 'demo.v1.1.0', replaces: 'demo.v1.0.0', skipRange: '>=1.0.0 <1.1.0' },
      ]),
      bundle('1.0.0'),
      bundle('1.1.0'),
    ]);
    const [diff] = diffCatalogs(before, after).packages;
    expect(diff?.channels[0]).toMatchObject({
      skipRanges: [{ entry: 'demo.v1.1.0', to: '>=1.0.0 <1.1.0' }],
      edgesAdded: [{ from: 'demo.v1.0.0', to: 'demo.v1.1.0', kind: 'skipRange' }],
    });
  });

  it('reports a bundle’s image, properties, manifests and related images by what they are', () => {
    const crd = (versions: string[]) => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'demos.demo.io' },
      spec: { versions: versions.map((name) => ({ name })) },
    });
    const csv = {
      apiVersion: 'operators.coreos.com/v1alpha1',
      kind: 'ClusterServiceVersion',
      metadata: { name: 'demo.v1.1.0' },
    };
    const role = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'demo-metrics' },
    };
    const objects = (...list: unknown[]) =>
      list.map((o) => ({ type: 'olm.bundle.object', value: { data: base64(o) } }));
    const before = model([
      ...twoVersions().slice(0, 3),
      bundle('1.1.0', {
        properties: [
          { type: 'olm.package.required', value: { packageName: 'etcd', versionRange: '>=3.0.0' } },
          ...objects(csv, crd(['v1']), role),
        ],
        relatedImages: [
          { name: 'operator', image: 'example.com/demo:v1.1.0' },
          { name: 'proxy', image: 'example.com/proxy:v1' },
        ],
      }),
    ]);
    const after = model([
      ...twoVersions().slice(0, 3),
      bundle('1.1.0', {
        image:
          'example.com/demo-bundle@sha256:0000000000000000000000000000000000000000000000000000000000000000',
        properties: [
          { type: 'olm.gvk.required', value: { group: 'etcd.io', kind: 'Etcd', version: 'v1' } },
          // The same CSV with its keys in another order: unchanged.
          ...objects(
            { metadata: csv.metadata, kind: csv.kind, apiVersion: csv.apiVersion },
            crd(['v1', 'v2']),
          ),
        ],
        relatedImages: [
          { name: 'operator', image: 'example.com/demo:v1.1.1' },
          { name: 'exporter', image: 'example.com/exporter:v2' },
        ],
      }),
    ]);
    const [diff] = diffCatalogs(before, after).packages;
    expect(diff?.bundles).toEqual([
      {
        name: 'demo.v1.1.0',
        version: '1.1.0',
        image: {
          from: 'example.com/demo-bundle:v1.1.0',
          to: 'example.com/demo-bundle@sha256:0000000000000000000000000000000000000000000000000000000000000000',
        },
        properties: [
          {
            type: 'olm.gvk.required',
            added: ['{"group":"etcd.io","kind":"Etcd","version":"v1"}'],
            removed: [],
          },
          {
            type: 'olm.package.required',
            added: [],
            removed: ['{"packageName":"etcd","versionRange":">=3.0.0"}'],
          },
        ],
        objectsAdded: [],
        objectsRemoved: [{ kind: 'Role', name: 'demo-metrics' }],
        objectsChanged: [{ kind: 'CustomResourceDefinition', name: 'demos.demo.io' }],
        relatedImagesAdded: [{ name: 'exporter', image: 'example.com/exporter:v2' }],
        relatedImagesRemoved: [{ name: 'proxy', image: 'example.com/proxy:v1' }],
        relatedImagesChanged: [
          { name: 'operator', from: 'example.com/demo:v1.1.0', to: 'example.com/demo:v1.1.1' },
        ],
      },
    ]);
    const warnings = diffFindings(diffCatalogs(before, after)).filter((f) => f.severity === 'warning');
    // A bundle both catalogs have whose image or manifests changed was released once with other content.
    expect(warnings.map((f) => `${f.rule}: ${f.message}`)).toEqual([
      'diff/image-changed: demo: released bundle demo.v1.1.0 changed in place: image "example.com/demo-bundle:v1.1.0" → "example.com/demo-bundle@sha256:0000000000000000000000000000000000000000000000000000000000000000"',
      'diff/object-changed: demo: released bundle demo.v1.1.0 changed in place: manifest CustomResourceDefinition/demos.demo.io changed',
      'diff/related-image-removed: demo: bundle demo.v1.1.0: related image proxy example.com/proxy:v1 removed',
    ]);
  });

  it('reports deprecations of the package, a channel and a bundle coming, changing and going', () => {
    const deprecations = (entries: Blob[]): Blob => ({
      schema: 'olm.deprecations',
      package: 'demo',
      entries,
    });
    const before = model([
      ...twoVersions(),
      deprecations([
        { reference: { schema: 'olm.channel', name: 'stable' }, message: 'use fast' },
        { reference: { schema: 'olm.bundle', name: 'demo.v1.0.0' }, message: 'broken' },
      ]),
    ]);
    const after = model([
      ...twoVersions(),
      deprecations([
        { reference: { schema: 'olm.package' }, message: 'demo is retired' },
        { reference: { schema: 'olm.bundle', name: 'demo.v1.0.0' }, message: 'broken: data loss' },
      ]),
    ]);
    const findings = diffFindings(diffCatalogs(before, after));
    expect(findings.map((f) => [f.rule, f.channel ?? '', f.message])).toEqual([
      ['diff/deprecation-added', '', 'demo: package deprecated: "demo is retired"'],
      [
        'diff/deprecation-changed',
        '',
        'demo: bundle demo.v1.0.0 deprecation message "broken" → "broken: data loss"',
      ],
      ['diff/deprecation-removed', 'stable', 'demo: channel stable no longer deprecated'],
    ]);
  });

  it('reports a package that came or went as one finding, with its channels and bundles in the structure', () => {
    const other: Blob[] = [
      { schema: 'olm.package', name: 'other', defaultChannel: 'alpha' },
      { schema: 'olm.channel', package: 'other', name: 'alpha', entries: [{ name: 'other.v0.1.0' }] },
      {
        schema: 'olm.bundle',
        name: 'other.v0.1.0',
        package: 'other',
        image: 'example.com/other-bundle:v0.1.0',
        properties: [{ type: 'olm.package', value: { packageName: 'other', version: '0.1.0' } }],
      },
    ];
    const diff = diffCatalogs(model([...twoVersions(), ...other]), model(twoVersions()));
    expect(diff.packages).toEqual([
      {
        name: 'other',
        status: 'removed',
        defaultChannel: { from: 'alpha' },
        channelsAdded: [],
        channelsRemoved: ['alpha'],
        channels: [],
        bundlesAdded: [],
        bundlesRemoved: [{ name: 'other.v0.1.0', version: '0.1.0' }],
        bundles: [],
      },
    ]);
    expect(diffFindings(diff)).toEqual([
      {
        rule: 'diff/package-removed',
        severity: 'warning',
        package: 'other',
        message: 'other: package removed with 1 channel and 1 bundle: other.v0.1.0 (0.1.0)',
      },
    ]);
    expect(diffCatalogs(model(twoVersions()), model([...twoVersions(), ...other])).packages[0]?.status).toBe(
      'added',
    );
  });
});
