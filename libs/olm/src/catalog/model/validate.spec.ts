import { describe, expect, it } from 'vitest';
import { bundleBlob, channelBlob, oneChannel, pkgBlob } from '../declcfg/spec-fixtures.js';
import type { Catalog } from '../declcfg/types.js';
import { formatValidationResults } from './format.js';
import { validateCatalog } from './validate.js';

const errors = (c: Catalog) => validateCatalog(c).filter((r) => r.level === 'error');
const messages = (c: Catalog) => errors(c).map((r) => r.message);

describe('validateCatalog', () => {
  it('accepts a channel with replaces, skips and a skipRange', () => {
    const c = oneChannel([
      { name: 'foo.v1.0.0' },
      { name: 'foo.v1.1.0', replaces: 'foo.v1.0.0' },
      { name: 'foo.v1.2.0', replaces: 'foo.v1.0.0', skips: ['foo.v1.1.0'], skipRange: '>=1.0.0 <1.2.0' },
    ]);
    expect(errors(c)).toEqual([]);
  });

  it('accepts an empty catalog, as opm does', () => {
    expect(errors({ packages: [], channels: [], bundles: [], deprecations: [], others: [] })).toEqual([]);
  });

  it('reports every conversion problem, not just the first one opm stops at', () => {
    const c = oneChannel([{ name: 'foo.v1.0.0' }]);
    c.packages.push(pkgBlob('Bad_Name'));
    c.bundles.push(bundleBlob('nope', '1.0.0'));
    expect(messages(c)).toEqual([
      expect.stringContaining('invalid package name "Bad_Name"'),
      'unknown package "nope" for bundle "nope.v1.0.0"',
    ]);
  });

  it('runs the model checks only when conversion succeeded, like opm', () => {
    const c = oneChannel([{ name: 'foo.v1.0.0' }, { name: 'foo.v2.0.0' }]);
    c.bundles.push(bundleBlob('ghost', '1.0.0'));
    expect(errors(c).map((r) => r.stage)).toEqual(['convert']);
  });

  it('checks channel entries against bundles in every channel (opm checks only the last channel loaded)', () => {
    const c = oneChannel([{ name: 'foo.v1.0.0' }]);
    c.channels.unshift(channelBlob('foo', 'fast', [{ name: 'foo.v9.0.0' }]));
    expect(messages(c)).toEqual([
      'no olm.bundle blobs found in package "foo" for olm.channel entries [foo.v9.0.0]',
    ]);
  });

  it('does not report a bundle twice when its blob is broken and its entry therefore lacks a bundle', () => {
    const c = oneChannel([{ name: 'foo.v1.0.0' }]);
    c.bundles[0]!.properties = [{ type: 'olm.package', value: { packageName: 'foo', version: 'v1' } }];
    expect(messages(c)).toEqual([
      'error parsing bundle "foo.v1.0.0" version "v1": No Major.Minor.Patch elements found',
    ]);
  });

  it('locates each problem by package, channel, bundle and file', () => {
    const c = oneChannel([{ name: 'foo.v1.0.0', skipRange: '^1.0.0' }]);
    c.bundles[0]!.source = { file: 'foo/catalog.yaml', index: 2 };
    expect(errors(c)).toEqual([
      {
        level: 'error',
        code: 'BUNDLE_SKIP_RANGE_INVALID',
        stage: 'model',
        message:
          'invalid skipRange "^1.0.0": Could not parse Range "^1.0.0": Could not parse comparator "^" in "^1.0.0"',
        package: 'foo',
        channel: 'stable',
        bundle: 'foo.v1.0.0',
        file: 'foo/catalog.yaml',
      },
    ]);
  });

  it('requires bundle names of the form <package>-v<version>-<release> when a release is set', () => {
    const c = oneChannel([{ name: 'foo.v1.0.0' }]);
    c.bundles[0]!.properties = [
      { type: 'olm.package', value: { packageName: 'foo', version: '1.0.0', release: '2' } },
    ];
    expect(messages(c)).toEqual(['name "foo.v1.0.0" does not match normalized name "foo-v1.0.0-2"']);
  });

  it('finds duplicate versions across channels, counting a bundle in several channels once', () => {
    const c = oneChannel([{ name: 'foo.v1.0.0' }, { name: 'foo.v1.0.0-b', replaces: 'foo.v1.0.0' }]);
    c.bundles[1] = bundleBlob('foo', '1.0.0', 'foo.v1.0.0-b');
    c.channels.push(channelBlob('foo', 'fast', [{ name: 'foo.v1.0.0' }]));
    expect(messages(c)).toEqual([
      'duplicate versions found in bundles: [{1.0.0: [foo.v1.0.0, foo.v1.0.0-b]}]',
    ]);
  });

  it('validates deprecations and reports an empty message in the model stage', () => {
    const c = oneChannel([{ name: 'foo.v1.0.0' }]);
    c.deprecations.push({
      schema: 'olm.deprecations',
      package: 'foo',
      entries: [
        { reference: { schema: 'olm.package' }, message: '' },
        { reference: { schema: 'olm.bundle', name: 'foo.v1.0.0' }, message: 'old' },
      ],
    });
    expect(messages(c)).toEqual(['invalid deprecation: message must be set']);
    c.deprecations[0]!.entries.push({ reference: { schema: 'olm.package' }, message: 'x' });
    expect(messages(c)).toEqual([
      'duplicate deprecation entry declcfg.PackageScopedReference{Schema:"olm.package", Name:""} for package "foo"',
    ]);
  });

  it('warns about unknown schemas and channel heads without metadata without making the catalog invalid', () => {
    const c = oneChannel([{ name: 'foo.v1.0.0' }]);
    c.others.push({ schema: 'olm.bundel', package: 'foo', name: '', blob: {} });
    const results = validateCatalog(c);
    expect(results.map((r) => [r.level, r.code])).toEqual([
      ['warning', 'UNKNOWN_SCHEMA'],
      ['warning', 'CHANNEL_HEAD_WITHOUT_METADATA'],
    ]);
    expect(validateCatalog(c, { warnings: false })).toEqual([]);
  });

  it('warns when an upgrade stops serving an API version its predecessor served', () => {
    const c = oneChannel([
      { name: 'foo.v1.0.0' },
      { name: 'foo.v2.0.0', replaces: 'foo.v1.0.0' },
      { name: 'foo.v3.0.0', replaces: 'foo.v2.0.0' },
    ]);
    const gvk = (version: string) => ({
      type: 'olm.gvk',
      value: { group: 'example.com', kind: 'Widget', version },
    });
    c.bundles[0]!.properties.push(gvk('v1alpha1'));
    c.bundles[1]!.properties.push(gvk('v1alpha1'), gvk('v1beta1'));
    c.bundles[2]!.properties.push(gvk('v1beta1'));
    const removed = validateCatalog(c).filter((r) => r.code === 'API_VERSION_REMOVED');
    expect(removed).toMatchObject([
      {
        level: 'warning',
        bundle: 'foo.v3.0.0',
        message:
          'bundle "foo.v3.0.0" no longer serves example.com/v1alpha1, Kind=Widget, which "foo.v2.0.0" does: objects stored in v1alpha1 must be rewritten in the new storage version and v1alpha1 removed from the CRD\'s status.storedVersions before this upgrade, or OLM refuses it',
      },
    ]);
    expect(errors(c)).toEqual([]);
  });
});

describe('formatValidationResults', () => {
  it('prints model problems as opm tree, channels and bundles in name order', () => {
    const c = oneChannel([{ name: 'foo.v1.0.0' }, { name: 'foo.v1.1.0' }]);
    c.bundles[1]!.image = '';
    c.channels.push(channelBlob('foo', 'alpha', [{ name: 'foo.v1.0.0', skips: [''] }]));
    expect(formatValidationResults(validateCatalog(c))).toBe(
      [
        'invalid index:',
        '└── invalid package "foo":',
        '    ├── invalid channel "alpha":',
        '    │   └── invalid bundle "foo.v1.0.0":',
        '    │       └── skip[0] is empty',
        '    └── invalid channel "stable":',
        '        ├── multiple channel heads found in graph: foo.v1.0.0, foo.v1.1.0',
        '        └── invalid bundle "foo.v1.1.0":',
        '            └── bundle image must be set',
      ].join('\n'),
    );
  });

  it('prints the first conversion problem alone, as opm stops there', () => {
    const c = oneChannel([{ name: 'foo.v1.0.0' }]);
    c.packages.push(pkgBlob('foo'));
    expect(formatValidationResults(validateCatalog(c))).toBe('duplicate package "foo"');
  });

  it('prints nothing for a valid catalog', () => {
    expect(formatValidationResults(validateCatalog(oneChannel([{ name: 'foo.v1.0.0' }])))).toBe('');
  });
});
