import { describe, expect, it } from 'vitest';
import type { ChannelEntry } from '../../catalog/declcfg/types.js';
import type { Finding } from '../findings.js';
import { upgradePathChanges } from './changes.js';
import { opCatalog } from './spec-fixtures.js';

const chain: ChannelEntry[] = [
  { name: 'op.v1.0.0' },
  { name: 'op.v1.0.1', replaces: 'op.v1.0.0' },
  { name: 'op.v1.0.2', replaces: 'op.v1.0.1' },
];
const later: ChannelEntry[] = [...chain, { name: 'op.v1.0.3', replaces: 'op.v1.0.2' }];

/** `severity rule: message` of the findings of one rule. */
function findingsOf(rule: string, findings: readonly Finding[]): string[] {
  return findings.filter((f) => f.rule === rule).map((f) => `${f.severity} ${f.rule}: ${f.message}`);
}

const change = (before: Record<string, ChannelEntry[]>, after: Record<string, ChannelEntry[]>) =>
  upgradePathChanges(opCatalog(before), opCatalog(after)).findings;

describe('upgradePathChanges', () => {
  it('finds nothing when a release only adds a bundle on top of the chain', () => {
    expect(change({ stable: chain }, { stable: later })).toEqual([]);
  });

  describe('upgrade/stranded', () => {
    it('is an error for a version the change strands, including one the catalog dropped', () => {
      const after = [{ name: 'op.v1.0.1' }, { name: 'op.v1.0.2', replaces: 'op.v1.0.1' }];
      expect(findingsOf('upgrade/stranded', change({ stable: chain }, { stable: after }))).toEqual([
        'error upgrade/stranded: op all channels: 1.0.0 (op.v1.0.0, no longer in the catalog) has no upgrade path to a head: nothing replaces, skips or skipRange-includes it (v1 only)',
        'error upgrade/stranded: op channel "stable": 1.0.0 (op.v1.0.0, no longer in the catalog) has no upgrade path to a head: nothing replaces, skips or skipRange-includes it (v0 and v1)',
      ]);
    });

    it('is a warning for a version that was stranded before (the v0 skips trap), and v0 only', () => {
      const trap = [
        { name: 'op.v1.0.0' },
        { name: 'op.v2.0.0', replaces: 'op.v1.0.0' },
        { name: 'op.v3.0.0', skips: ['op.v2.0.0'] },
        { name: 'op.v4.0.0', replaces: 'op.v3.0.0' },
      ];
      const next = [...trap, { name: 'op.v5.0.0', replaces: 'op.v4.0.0' }];
      expect(findingsOf('upgrade/stranded', change({ stable: trap }, { stable: next }))).toEqual([
        'warning upgrade/stranded: op channel "stable": 1.0.0 (op.v1.0.0) has no upgrade path to a head: nothing replaces, skips or skipRange-includes it, as before (v0 only)',
      ]);
    });
  });

  describe('upgrade/edge-removed', () => {
    const jump = [...chain.slice(0, 2), { name: 'op.v1.0.2', replaces: 'op.v1.0.1', skipRange: '<1.0.2' }];

    it('warns when the edge a version took is gone and its path got longer', () => {
      const findings = change({ stable: jump }, { stable: chain });
      expect(findingsOf('upgrade/edge-removed', findings)).toEqual([
        'warning upgrade/edge-removed: op all channels: the upgrade edge op.v1.0.0 -> op.v1.0.2 that users of 1.0.0 took is gone, and the path to a head now takes 2 steps instead of 1 (v1 only)',
        'warning upgrade/edge-removed: op channel "stable": the upgrade edge op.v1.0.0 -> op.v1.0.2 that users of 1.0.0 took is gone, and the path to a head now takes 2 steps instead of 1 (v0 and v1)',
      ]);
      expect(findings.find((f) => f.rule === 'upgrade/edge-removed')?.edge).toEqual({
        from: 'op.v1.0.0',
        to: 'op.v1.0.2',
      });
    });

    it('is an error when the version no longer reaches a head', () => {
      const after = [{ name: 'op.v1.0.1' }, { name: 'op.v1.0.2', replaces: 'op.v1.0.1' }];
      expect(findingsOf('upgrade/edge-removed', change({ stable: chain }, { stable: after }))).toContain(
        'error upgrade/edge-removed: op channel "stable": the upgrade edge op.v1.0.0 -> op.v1.0.1 that users of 1.0.0 took is gone, and it no longer reaches a head (v0 and v1)',
      );
    });

    it('is silent when a new head with a wider skipRange takes over', () => {
      const next = [...jump, { name: 'op.v1.0.3', replaces: 'op.v1.0.2', skipRange: '<1.0.3' }];
      expect(findingsOf('upgrade/edge-removed', change({ stable: jump }, { stable: next }))).toEqual([]);
    });
  });

  describe('upgrade/head-moved-backwards', () => {
    it('is an error when the head has a lower version than before', () => {
      const findings = change({ stable: chain }, { stable: chain.slice(0, 2) });
      expect(findingsOf('upgrade/head-moved-backwards', findings)).toEqual([
        'error upgrade/head-moved-backwards: op channel "stable": the head op.v1.0.1 (1.0.1) has a lower version than the previous head op.v1.0.2 (1.0.2) (v0 and v1)',
      ]);
    });

    it('is silent when the head moves up', () => {
      expect(
        findingsOf('upgrade/head-moved-backwards', change({ stable: chain }, { stable: later })),
      ).toEqual([]);
    });
  });

  describe('upgrade/skip-range-gap', () => {
    const narrow = [
      ...chain.slice(0, 2),
      { name: 'op.v1.0.2', replaces: 'op.v1.0.1', skipRange: '>=1.0.1 <1.0.2' },
    ];

    it('warns about a version below the head its skipRange leaves out, with how far its users get', () => {
      expect(findingsOf('upgrade/skip-range-gap', change({ stable: chain }, { stable: narrow }))).toEqual([
        'warning upgrade/skip-range-gap: op channel "stable": the head op.v1.0.2\'s skipRange ">=1.0.1 <1.0.2" does not cover 1.0.0 (op.v1.0.0) and the head neither replaces nor skips it, so its users reach the head in 2 steps (v0 and v1)',
      ]);
    });

    it('is info when the previous catalog had the same gap', () => {
      const findings = findingsOf('upgrade/skip-range-gap', change({ stable: narrow }, { stable: narrow }));
      expect(findings).toHaveLength(1);
      expect(findings[0]).toMatch(/^info upgrade\/skip-range-gap: .*1\.0\.0/);
    });

    it('is silent when the skipRange covers every lower version', () => {
      const wide = [...chain.slice(0, 2), { name: 'op.v1.0.2', replaces: 'op.v1.0.1', skipRange: '<1.0.2' }];
      expect(findingsOf('upgrade/skip-range-gap', change({ stable: chain }, { stable: wide }))).toEqual([]);
    });
  });

  describe('upgrade/deprecated-path', () => {
    const two = chain.slice(0, 2);

    it('warns when every bundle the upgrades move to is deprecated (v0); under v1 the deprecated bundle strands its users', () => {
      const findings = upgradePathChanges(
        opCatalog({ stable: two }),
        opCatalog({ stable: two }, { deprecated: ['op.v1.0.1'] }),
      ).findings;
      expect(findingsOf('upgrade/deprecated-path', findings)).toEqual([
        'warning upgrade/deprecated-path: op channel "stable": every bundle the upgrades from 1.0.0 (op.v1.0.0) move to is deprecated (op.v1.0.1) (v0 only)',
      ]);
      expect(findingsOf('upgrade/stranded', findings)).toEqual([
        // A new installation gets 1.0.0 under v1, so its users are where they should be; those on the deprecated
        // 1.0.1 have no way back.
        'error upgrade/stranded: op all channels: 1.0.1 (op.v1.0.1) has no upgrade path to a head: nothing replaces, skips or skipRange-includes it (v1 only)',
        'error upgrade/stranded: op channel "stable": 1.0.1 (op.v1.0.1) has no upgrade path to a head: nothing replaces, skips or skipRange-includes it (v1 only)',
      ]);
    });

    it('is silent when the path leaves a deprecated bundle for a supported one', () => {
      const findings = upgradePathChanges(
        opCatalog({ stable: two }),
        opCatalog({ stable: two }, { deprecated: ['op.v1.0.0'] }),
      ).findings;
      expect(findings).toEqual([]);
    });
  });

  describe('upgrade/channel-removed and upgrade/default-channel-removed', () => {
    it('are errors when a channel, or the default channel, is gone', () => {
      const before = opCatalog({ stable: chain, fast: later }, { defaultChannel: 'stable' });
      const after = opCatalog({ fast: later }, { defaultChannel: 'fast' });
      const findings = upgradePathChanges(before, after).findings;
      expect(findings.filter((f) => f.rule.endsWith('channel-removed')).map((f) => f.message)).toEqual([
        'op channel "stable" is gone, and Subscriptions or ClusterExtensions naming it have nothing to upgrade to (v0 and v1)',
        'op default channel "stable" is gone, which Subscriptions without a channel follow (v0 only)',
      ]);
    });

    it('are silent when the default channel changes to another and the old one stays', () => {
      const before = opCatalog({ stable: chain, fast: later }, { defaultChannel: 'stable' });
      const after = opCatalog({ stable: chain, fast: later }, { defaultChannel: 'fast' });
      expect(upgradePathChanges(before, after).findings).toEqual([]);
    });
  });

  it('works out only the rules asked for, and labels findings with them', () => {
    const after = [{ name: 'op.v1.0.1' }, { name: 'op.v1.0.2', replaces: 'op.v1.0.1' }];
    const changes = upgradePathChanges(opCatalog({ stable: chain }), opCatalog({ stable: after }), {
      rules: ['v0'],
    });
    expect(changes.next.v1).toEqual([]);
    expect(findingsOf('upgrade/stranded', changes.findings)).toEqual([
      'error upgrade/stranded: op channel "stable": 1.0.0 (op.v1.0.0, no longer in the catalog) has no upgrade path to a head: nothing replaces, skips or skipRange-includes it (v0)',
    ]);
  });
});
