import { describe, expect, it } from 'vitest';
import { bundleBlob, channelBlob, oneChannel } from '../catalog/declcfg/spec-fixtures.js';
import type { ChannelEntry } from '../catalog/declcfg/types.js';
import { convertToModel } from '../catalog/model/convert-to-model.js';
import { nextUpgrade } from './next-upgrade.js';

const chain: ChannelEntry[] = [
  { name: 'op.v1.0.0' },
  { name: 'op.v1.0.1', replaces: 'op.v1.0.0' },
  { name: 'op.v1.0.2', replaces: 'op.v1.0.1' },
];
const to = (entries: ChannelEntry[], installed: string) =>
  nextUpgrade(convertToModel(oneChannel(entries, 'op')), 'op', 'stable', installed);

// The worked examples of olm-docs creating-an-update-graph.md (reference §7.3).
describe('nextUpgrade (OLM v0 subscription resolution)', () => {
  it('moves one replaces edge at a time along a plain chain', () => {
    expect(to(chain, '1.0.0')).toMatchObject({ to: { name: 'op.v1.0.1' }, reason: 'replaces' });
    expect(to(chain, '1.0.1')).toMatchObject({ to: { name: 'op.v1.0.2' }, reason: 'replaces' });
    expect(to(chain, '1.0.2')).toMatchObject({
      reason: 'up-to-date',
      explanation: 'op.v1.0.2 is the head of channel "stable"',
    });
  });

  it('jumps to an entry that skips the installed version', () => {
    const entries = [
      ...chain,
      { name: 'op.v1.0.3', replaces: 'op.v1.0.0', skips: ['op.v1.0.1', 'op.v1.0.2'] },
    ];
    expect(to(entries, '1.0.0')).toMatchObject({
      to: { name: 'op.v1.0.3', version: '1.0.3' },
      reason: 'replaces',
    });
    expect(to(entries, '1.0.1')).toMatchObject({ to: { name: 'op.v1.0.3' }, reason: 'skips' });
    expect(to(entries, '1.0.2')).toMatchObject({ to: { name: 'op.v1.0.3' }, reason: 'skips' });
  });

  it('jumps to the head in one hop when its skipRange includes the installed version', () => {
    const entries = [...chain, { name: 'op.v1.0.3', replaces: 'op.v1.0.2', skipRange: '>=1.0.0 <1.0.3' }];
    const d = to(entries, '1.0.0');
    expect(d).toMatchObject({ to: { name: 'op.v1.0.3' }, reason: 'skipRange' });
    expect(d.explanation).toBe(
      'op.v1.0.3 has skipRange ">=1.0.0 <1.0.3" including 1.0.0; it is the head of channel "stable" with a direct edge from the installed bundle',
    );
    expect(d.candidates.map((c) => c.name)).toEqual(['op.v1.0.3', 'op.v1.0.1']);
  });

  it('uses blang ranges, so a prerelease inside the range is covered (npm semver would exclude it)', () => {
    const entries = [
      { name: 'op.v1.0.0-rc.1' },
      { name: 'op.v1.0.5', replaces: 'op.v1.0.0-rc.1' },
      { name: 'op.v1.1.0', replaces: 'op.v1.0.5', skipRange: '>=0.9.0 <1.1.0' },
    ];
    expect(to(entries, '1.0.0-rc.1')).toMatchObject({ to: { name: 'op.v1.1.0' }, reason: 'skipRange' });
  });

  it('explains the non-transitive skips trap: a skipped entry is never offered', () => {
    const entries = [
      { name: 'op.v1.0.0' },
      { name: 'op.v2.0.0', replaces: 'op.v1.0.0' },
      { name: 'op.v3.0.0', skips: ['op.v2.0.0'] },
      { name: 'op.v4.0.0', replaces: 'op.v3.0.0' },
    ];
    const d = to(entries, '1.0.0');
    expect(d.to).toBeUndefined();
    expect(d.reason).toBe('no-edge');
    expect(d.trappedBy).toEqual(['op.v2.0.0']);
  });

  it('searches the default channel first and the others by name when no channel is given', () => {
    const c = oneChannel(chain, 'op');
    c.channels.push(
      channelBlob('op', 'alpha', [{ name: 'op.v1.0.0' }, { name: 'op.v2.0.0', replaces: 'op.v1.0.0' }]),
    );
    c.bundles.push(bundleBlob('op', '2.0.0'));
    expect(nextUpgrade(convertToModel(c), 'op', '', '1.0.0')).toMatchObject({
      to: { name: 'op.v1.0.1', channel: 'stable' },
    });
    expect(nextUpgrade(convertToModel(c), 'op', 'alpha', '1.0.0')).toMatchObject({
      to: { name: 'op.v2.0.0', channel: 'alpha' },
    });
  });

  it('moves to a new channel only through an edge from the installed bundle', () => {
    const c = oneChannel(chain, 'op');
    c.channels.push(channelBlob('op', 'v2', [{ name: 'op.v2.0.0' }]));
    c.bundles.push(bundleBlob('op', '2.0.0'));
    expect(nextUpgrade(convertToModel(c), 'op', 'v2', '1.0.0').reason).toBe('no-edge');
  });

  it('fails like OLM when the channel cannot be ordered', () => {
    expect(() => to([{ name: 'op.v1.0.0' }, { name: 'op.v1.1.0' }], '1.0.0')).toThrow(
      /2 replacement chains were found/,
    );
  });
});
