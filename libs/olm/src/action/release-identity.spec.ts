import { describe, expect, it } from 'vitest';
import { type Catalog, type ChannelEntry, emptyCatalog } from '../catalog/declcfg/types.js';
import type { OperatorRelease } from './operator-release.js';
import { releaseDisagreements } from './release-identity.js';

const manifest = 'operators/demo/package.json';
const file = 'catalog/templates/demo.yaml';

const release = (fields: Partial<OperatorRelease> = {}): OperatorRelease => ({
  manifest,
  operatorDir: 'operators/demo',
  version: '0.2.0',
  package: 'demo',
  channels: ['alpha'],
  image: 'registry.example/demo',
  replaces: '0.1.0',
  ...fields,
});

/** A catalog of package `demo` with the given default channel and channels. */
function catalog(defaultChannel: string, channels: Record<string, ChannelEntry[]>): Catalog {
  return {
    ...emptyCatalog(),
    packages: [{ schema: 'olm.package', name: 'demo', defaultChannel }],
    channels: Object.entries(channels).map(([name, entries]) => ({
      schema: 'olm.channel',
      name,
      package: 'demo',
      entries,
    })),
  };
}

const upgrade: ChannelEntry[] = [{ name: 'demo.v0.1.0' }, { name: 'demo.v0.2.0', replaces: 'demo.v0.1.0' }];

const check = (c: Catalog, r: OperatorRelease, schema = 'olm.template.basic') =>
  releaseDisagreements({ file, catalog: c, schema }, [r]);

describe("a catalog template held to the operator's release identity", () => {
  it('agrees when the current version replaces opkit.replaces in the channels opkit.channels names', () => {
    expect(check(catalog('alpha', { alpha: upgrade }), release())).toEqual([]);
    expect(check(catalog('alpha', { alpha: upgrade }), release({ replaces: 'demo.v0.1.0' }))).toEqual([]);
    expect(
      check(
        catalog('stable', { stable: upgrade, alpha: upgrade }),
        release({ channels: ['stable', 'alpha'] }),
      ),
    ).toEqual([]);
  });

  it('names the template and opkit.replaces when the upgrade edge differs', () => {
    expect(check(catalog('alpha', { alpha: upgrade }), release({ replaces: '0.0.9' }))).toEqual([
      `${file}: channel alpha: demo.v0.2.0 replaces demo.v0.1.0, but ${manifest} opkit.replaces is 0.0.9`,
    ]);
    const { replaces: _, ...first } = release();
    expect(check(catalog('alpha', { alpha: upgrade }), first)).toEqual([
      `${file}: channel alpha: demo.v0.2.0 replaces demo.v0.1.0, but ${manifest} opkit.replaces is not set`,
    ]);
    expect(check(catalog('alpha', { alpha: [{ name: 'demo.v0.2.0' }] }), release())).toEqual([
      `${file}: channel alpha: demo.v0.2.0 replaces nothing, but ${manifest} opkit.replaces is 0.1.0`,
    ]);
  });

  it('names the version when no channel lists it', () => {
    expect(check(catalog('alpha', { alpha: upgrade }), release({ version: '0.3.0' }))).toEqual([
      `${file}: no channel lists demo.v0.3.0, but ${manifest} version is 0.3.0`,
    ]);
  });

  it('names opkit.channels when the channels listing the version differ, and opkit.channels[0] for the default', () => {
    expect(
      check(catalog('alpha', { alpha: upgrade, beta: upgrade }), release({ channels: ['stable', 'alpha'] })),
    ).toEqual([
      `${file}: channel beta lists demo.v0.2.0, but ${manifest} opkit.channels does not name it`,
      `${file}: no channel stable lists demo.v0.2.0, but ${manifest} opkit.channels names it`,
      `${file}: defaultChannel is alpha, but ${manifest} opkit.channels[0] is stable`,
    ]);
  });

  it('holds a semver template to opkit.channels through the channel names it generates', () => {
    const semver = 'olm.semver';
    const majors = catalog('stable-v0', { 'stable-v0': upgrade });
    expect(check(majors, release({ channels: ['stable-v0'] }), semver)).toEqual([]);
    expect(check(majors, release({ channels: ['stable-v0'], replaces: '0.0.9' }), semver)).toEqual([
      `${file}: channel stable-v0: demo.v0.2.0 replaces demo.v0.1.0, but ${manifest} opkit.replaces is 0.0.9`,
    ]);
    expect(check(majors, release(), semver)).toEqual([
      `${file}: channel stable-v0 (olm.semver: stable.bundles, generateMajorChannels) lists demo.v0.2.0, but ${manifest} opkit.channels does not name it`,
      `${file}: no channel alpha lists demo.v0.2.0, but ${manifest} opkit.channels names it (olm.semver generates only <candidate|fast|stable>-v<major>[.<minor>] channels)`,
      `${file}: defaultChannel is stable-v0 (olm.semver's most stable, newest channel), but ${manifest} opkit.channels[0] is alpha`,
    ]);
    const both = catalog('fast-v0.2', { 'fast-v0': upgrade, 'fast-v0.2': [{ name: 'demo.v0.2.0' }] });
    expect(check(both, release({ channels: ['fast-v0'], replaces: undefined }), semver)).toEqual([
      `${file}: channel fast-v0: demo.v0.2.0 replaces demo.v0.1.0, but ${manifest} opkit.replaces is not set`,
      `${file}: channel fast-v0.2 (olm.semver: fast.bundles, generateMinorChannels) lists demo.v0.2.0, but ${manifest} opkit.channels does not name it`,
      `${file}: defaultChannel is fast-v0.2 (olm.semver's most stable, newest channel), but ${manifest} opkit.channels[0] is fast-v0`,
    ]);
  });

  it('leaves alone the operators whose package the template does not hold', () => {
    expect(
      check(catalog('alpha', { alpha: upgrade }), release({ package: 'other', version: '9.0.0' })),
    ).toEqual([]);
  });
});
