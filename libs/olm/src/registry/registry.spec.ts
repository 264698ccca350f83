import { describe, expect, it } from 'vitest';
import { parseCatalogContent } from '../catalog/declcfg/load.js';
import { convertToModel } from '../catalog/model/convert-to-model.js';
import type { ApiBundle } from './api.js';
import { RegistryError } from './errors.js';
import { Bundle } from './messages.js';
import { RegistryQueries } from './queries.js';
import { buildRegistryModel } from './registry-model.js';
import { decodeMessage, encodeMessage } from './wire.js';

const catalogModel = (extraBundleProperties = '') =>
  convertToModel(
    parseCatalogContent(`
{"schema":"olm.package","name":"p","defaultChannel":"stable"}
{"schema":"olm.channel","package":"p","name":"stable","entries":[{"name":"p.v1.0.0"},{"name":"p.v1.1.0","replaces":"p.v1.0.0","skips":["p.v0.9.0"]}]}
{"schema":"olm.bundle","package":"p","name":"p.v1.0.0","image":"example.com/p:1.0.0","properties":[{"type":"olm.package","value":{"packageName":"p","version":"1.0.0"}}]}
{"schema":"olm.bundle","package":"p","name":"p.v1.1.0","image":"example.com/p:1.1.0","properties":[{"type":"olm.package","value":{"packageName":"p","version":"1.1.0"}},{"type":"olm.gvk","value":{"group":"g","kind":"K","version":"v1"}}${extraBundleProperties}]}
`),
  );

describe('wire codec', () => {
  it('round-trips a bundle and leaves proto3 defaults off the wire', () => {
    const [bundle] = [...new RegistryQueries(buildRegistryModel(catalogModel())).listBundles()].filter(
      (b) => b.csvName === 'p.v1.1.0',
    );
    const bytes = encodeMessage(Bundle, bundle!);
    expect(decodeMessage<ApiBundle>(Bundle, bytes)).toEqual({ ...bundle, csvJson: '', object: [] });
    expect(encodeMessage(Bundle, { csvName: '', object: [], skips: [] })).toHaveLength(0);
  });

  it('skips unknown fields and rejects truncated input', () => {
    // field 99 (varint) then field 1 = "x"
    const bytes = Buffer.from([0x98, 0x06, 0x01, 0x0a, 0x01, 0x78]);
    expect(decodeMessage<ApiBundle>(Bundle, bytes).csvName).toBe('x');
    expect(() => decodeMessage(Bundle, Buffer.from([0x0a, 0x05, 0x78]))).toThrow(
      'decode api.Bundle: field 1 overruns the message',
    );
  });
});

describe('registry queries', () => {
  const q = new RegistryQueries(buildRegistryModel(catalogModel()));

  it('answers with opm’s messages, including its one unquoted package name', () => {
    expect(q.getPackage('p').channels).toEqual([{ name: 'stable', csvName: 'p.v1.1.0' }]);
    expect(() => q.getPackage('x')).toThrow('package "x" not found');
    expect(() => q.getBundle('p', 'fast', 'p.v1.0.0')).toThrow('package "p", channel "fast" not found');
    expect(() => q.getBundleThatReplaces('p.v1.0.0', 'x', 'stable')).toThrow(/^package x not found$/);
    expect(() => q.getChannelEntriesThatReplace('p.v0.1.0')).toThrow(
      'no channel entries found that replace p.v0.1.0',
    );
  });

  it('lists an entry per skipped name, and clears replaces/skips of single bundles', () => {
    expect(q.getChannelEntriesThatProvide({ group: 'g', version: 'v1', kind: 'K', plural: '' })).toEqual([
      { packageName: 'p', channelName: 'stable', bundleName: 'p.v1.1.0', replaces: 'p.v1.0.0' },
      { packageName: 'p', channelName: 'stable', bundleName: 'p.v1.1.0', replaces: 'p.v0.9.0' },
    ]);
    // The latest-entries variant only lists skipped names that are in the channel.
    expect(
      q.getLatestChannelEntriesThatProvide({ group: 'g', version: 'v1', kind: 'K', plural: '' }),
    ).toHaveLength(1);
    expect(q.getBundleForChannel('p', 'stable')).toMatchObject({
      csvName: 'p.v1.1.0',
      replaces: '',
      skips: [],
    });
  });

  it('refuses what opm cannot convert, and inline serving without content', () => {
    const meta = ',{"type":"olm.csv.metadata","value":{}}';
    expect(() => buildRegistryModel(catalogModel(meta + meta))).toThrow(
      'package "p", bundle "p.v1.1.0": parse properties: expected at most 1 property of type "olm.csv.metadata", found 2',
    );
    expect(() => buildRegistryModel(catalogModel(), { inlineBundles: true })).toThrow(RegistryError);
  });
});
