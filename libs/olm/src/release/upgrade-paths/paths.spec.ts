import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../catalog/declcfg/load.js';
import { convertToModel } from '../../catalog/model/convert-to-model.js';
import { upgradePaths } from './paths.js';
import { opCatalog } from './spec-fixtures.js';
import { ALL_CHANNELS, type PackagePaths, pathEnd, type UpgradeRules } from './types.js';
import { nextUpgradeV1 } from './v1-choice.js';

/** `op.v1.0.0 -> op.v2.0.0 -> …: outcome` for the installed bundle in the channel selection. */
function walkOf(paths: PackagePaths[], channel: string, installed: string): string {
  const path = paths[0]?.channels
    .find((c) => c.channel === channel)
    ?.paths.find((p) => p.from.name === installed);
  if (path === undefined) return 'no path';
  return `${[path.from.name, ...path.steps.map((s) => s.to.name)].join(' -> ')}: ${path.outcome}`;
}

const pathsOf = (model: ReturnType<typeof opCatalog>, rules: UpgradeRules) => upgradePaths(model, rules);

describe('upgradePaths', () => {
  it('walks a plain replaces chain to the head under both rules', () => {
    const model = opCatalog({
      stable: [
        { name: 'op.v1.0.0' },
        { name: 'op.v1.0.1', replaces: 'op.v1.0.0' },
        { name: 'op.v1.0.2', replaces: 'op.v1.0.1' },
      ],
    });
    for (const rules of ['v0', 'v1'] as const) {
      expect(walkOf(pathsOf(model, rules), 'stable', 'op.v1.0.0')).toBe(
        'op.v1.0.0 -> op.v1.0.1 -> op.v1.0.2: head',
      );
      expect(walkOf(pathsOf(model, rules), 'stable', 'op.v1.0.2')).toBe('op.v1.0.2: head');
    }
    expect(pathsOf(model, 'v0')[0]?.channels.map((c) => c.channel)).toEqual(['stable']);
    expect(pathsOf(model, 'v1')[0]?.channels.map((c) => c.channel)).toEqual([ALL_CHANNELS, 'stable']);
  });

  it('strands v0 in the skips trap while v1 takes the successor that replaces the installed bundle', () => {
    const model = opCatalog({
      stable: [
        { name: 'op.v1.0.0' },
        { name: 'op.v2.0.0', replaces: 'op.v1.0.0' },
        { name: 'op.v3.0.0', skips: ['op.v2.0.0'] },
        { name: 'op.v4.0.0', replaces: 'op.v3.0.0' },
      ],
    });
    expect(walkOf(pathsOf(model, 'v0'), 'stable', 'op.v1.0.0')).toBe('op.v1.0.0: stuck');
    expect(walkOf(pathsOf(model, 'v1'), 'stable', 'op.v1.0.0')).toBe(
      'op.v1.0.0 -> op.v2.0.0 -> op.v3.0.0 -> op.v4.0.0: head',
    );
  });

  it('follows a skipRange off the replaces chain to a higher version under v1 only', () => {
    const model = opCatalog({
      stable: [
        { name: 'op.v1.0.0' },
        { name: 'op.v1.1.0', replaces: 'op.v1.0.0' },
        { name: 'op.v1.1.5', skipRange: '>=1.0.0 <1.1.5' },
        { name: 'op.v1.2.0', replaces: 'op.v1.1.0', skips: ['op.v1.1.5'] },
      ],
    });
    expect(walkOf(pathsOf(model, 'v0'), 'stable', 'op.v1.0.0')).toBe(
      'op.v1.0.0 -> op.v1.1.0 -> op.v1.2.0: head',
    );
    expect(walkOf(pathsOf(model, 'v1'), 'stable', 'op.v1.0.0')).toBe(
      'op.v1.0.0 -> op.v1.1.5 -> op.v1.2.0: head',
    );
    const step = pathsOf(model, 'v1')[0]?.channels[1]?.paths[0]?.steps[0];
    expect(step).toEqual({
      to: { name: 'op.v1.1.5', version: '1.1.5', deprecated: false },
      via: ['skipRange'],
    });
  });

  it('lets v1 on all channels jump through another channel; v0 per channel stays in its channel', () => {
    const model = opCatalog({
      fast: [{ name: 'op.v1.0.0' }, { name: 'op.v2.0.0', skipRange: '<2.0.0' }],
      stable: [{ name: 'op.v1.0.0' }, { name: 'op.v1.1.0', replaces: 'op.v1.0.0' }],
    });
    const v1 = pathsOf(model, 'v1');
    expect(walkOf(v1, ALL_CHANNELS, 'op.v1.0.0')).toBe('op.v1.0.0 -> op.v2.0.0: head');
    expect(walkOf(v1, 'stable', 'op.v1.0.0')).toBe('op.v1.0.0 -> op.v1.1.0: head');
    expect(walkOf(v1, ALL_CHANNELS, 'op.v1.1.0')).toBe('op.v1.1.0 -> op.v2.0.0: head');
    expect(walkOf(pathsOf(model, 'v0'), 'stable', 'op.v1.0.0')).toBe('op.v1.0.0 -> op.v1.1.0: head');
  });

  it('never takes a deprecated successor under v1, where a new installation also gets the supported bundle', () => {
    const model = opCatalog(
      { stable: [{ name: 'op.v1.0.0' }, { name: 'op.v1.0.1', replaces: 'op.v1.0.0' }] },
      { deprecated: ['op.v1.0.1'] },
    );
    expect(walkOf(pathsOf(model, 'v0'), 'stable', 'op.v1.0.0')).toBe('op.v1.0.0 -> op.v1.0.1: head');
    expect(walkOf(pathsOf(model, 'v1'), 'stable', 'op.v1.0.0')).toBe('op.v1.0.0: head');
    expect(walkOf(pathsOf(model, 'v1'), 'stable', 'op.v1.0.1')).toBe('op.v1.0.1: stuck');
  });

  it('under v1, a bundle nothing replaces any more is no head: its users are stuck below the newest', () => {
    const model = opCatalog({
      stable: [{ name: 'op.v1.0.0' }, { name: 'op.v1.0.1' }, { name: 'op.v1.0.2', replaces: 'op.v1.0.1' }],
    });
    expect(walkOf(pathsOf(model, 'v1'), 'stable', 'op.v1.0.0')).toBe('op.v1.0.0: stuck');
    expect(walkOf(pathsOf(model, 'v1'), 'stable', 'op.v1.0.1')).toBe('op.v1.0.1 -> op.v1.0.2: head');
  });

  it('gives bundles the catalog dropped a path when the earlier revision is passed', () => {
    const before = opCatalog({
      stable: [{ name: 'op.v1.0.0' }, { name: 'op.v1.0.1', replaces: 'op.v1.0.0' }],
    });
    const after = opCatalog({
      stable: [{ name: 'op.v1.0.1' }, { name: 'op.v1.0.2', replaces: 'op.v1.0.1', skipRange: '<1.0.2' }],
    });
    const paths = upgradePaths(after, 'v0', { formerly: before });
    const dropped = paths[0]?.channels[0]?.paths.find((p) => p.from.name === 'op.v1.0.0');
    expect(dropped?.inCatalog).toBe(false);
    expect(dropped && pathEnd(dropped).name).toBe('op.v1.0.2');
    expect(upgradePaths(after, 'v0')[0]?.channels[0]?.paths.map((p) => p.from.name)).toEqual([
      'op.v1.0.1',
      'op.v1.0.2',
    ]);
  });

  it('reports a replaces cycle and OLM v0 ordering errors as outcomes, not exceptions', () => {
    const model = opCatalog({
      stable: [
        { name: 'op.v1.0.0' },
        { name: 'op.v1.0.1', replaces: 'op.v1.0.0' },
        { name: 'op.v1.0.2', replaces: 'op.v1.0.0' },
      ],
    });
    const v0 = pathsOf(model, 'v0')[0]?.channels[0]?.paths[0];
    expect(v0?.outcome).toBe('error');
    expect(v0?.error).toContain('a unique replacement chain');
    expect(walkOf(pathsOf(model, 'v1'), 'stable', 'op.v1.0.0')).toBe('op.v1.0.0 -> op.v1.0.2: head');
  });

  it('picks by v1 order: not deprecated first, then the highest version and release', () => {
    const model = opCatalog(
      {
        stable: [
          { name: 'op.v1.0.0' },
          { name: 'op.v1.0.1+2', replaces: 'op.v1.0.0' },
          { name: 'op.v1.0.1+10', skips: ['op.v1.0.0'] },
          { name: 'op.v1.0.3', skipRange: '<1.0.3' },
        ],
      },
      { deprecated: ['op.v1.0.3'] },
    );
    const channels = [...(model.packages.get('op')?.channels.values() ?? [])];
    expect(nextUpgradeV1(channels, { name: 'op.v1.0.0', version: '1.0.0' })).toEqual({
      name: 'op.v1.0.1+10',
      version: '1.0.1+10',
      via: ['skips'],
      deprecated: false,
    });
    expect(nextUpgradeV1(channels, { name: 'op.v1.0.0', version: '1.0.0' }, 'SelfCertified')?.name).toBe(
      'op.v1.0.1+10',
    );
    expect(nextUpgradeV1(channels, { name: 'op.v1.0.3', version: '1.0.3' })?.name).toBe('op.v1.0.3');
  });
});

describe('nextUpgradeV1 on the shape of operator-controller v1.11.0 resolver tests', () => {
  // Skip ranges only, spread over three channels: 0.1.0 is in every range below 1.0.2 but not in 2.0.0's.
  const model = opCatalog({
    alpha: [
      { name: 'op.v0.1.0' },
      { name: 'op.v1.0.0', skipRange: '<1.0.0' },
      { name: 'op.v1.0.1', skipRange: '<1.0.1' },
      { name: 'op.v1.0.2', skipRange: '<1.0.2' },
      { name: 'op.v2.0.0', skipRange: '>=1.0.0 <2.0.0' },
    ],
    beta: [{ name: 'op.v0.1.0' }, { name: 'op.v1.0.2', skipRange: '<1.0.2' }],
    gamma: [{ name: 'op.v3.0.0', skipRange: '>=2.0.0 <3.0.0' }],
  });
  const channels = (...names: string[]) =>
    [...(model.packages.get('op')?.channels.values() ?? [])].filter(
      (c) => names.length === 0 || names.includes(c.name),
    );

  it('upgrades 0.1.0 to the highest successor, 1.0.2, not past the ranges that exclude it', () => {
    expect(nextUpgradeV1(channels(), { name: 'op.v0.1.0', version: '0.1.0' })?.name).toBe('op.v1.0.2');
  });

  it('looks for successors only in the channels selected', () => {
    expect(nextUpgradeV1(channels('gamma'), { name: 'op.v2.0.0', version: '2.0.0' })?.name).toBe('op.v3.0.0');
    expect(nextUpgradeV1(channels('beta'), { name: 'op.v2.0.0', version: '2.0.0' })).toBeUndefined();
  });

  it('walks 0.1.0 on all channels to 3.0.0 in three steps', () => {
    expect(walkOf(upgradePaths(model, 'v1'), ALL_CHANNELS, 'op.v0.1.0')).toBe(
      'op.v0.1.0 -> op.v1.0.2 -> op.v2.0.0 -> op.v3.0.0: head',
    );
  });
});

describe("this repository's catalog", () => {
  it('takes every installed version of memcached-operator and redis-operator to the head under v0 and v1', async () => {
    const dir = fileURLToPath(new URL('../../../../../catalog/configs', import.meta.url));
    const model = convertToModel(await loadCatalog(dir));
    for (const rules of ['v0', 'v1'] as const) {
      const paths = upgradePaths(model, rules);
      expect(paths.map((p) => p.package)).toEqual(['memcached-operator', 'redis-operator']);
      for (const pkg of paths) {
        const installed = pkg.channels.flatMap((c) => c.paths);
        expect(installed.length).toBeGreaterThan(1);
        for (const path of installed) {
          expect({ rules, from: path.from.name, outcome: path.outcome }).toEqual({
            rules,
            from: path.from.name,
            outcome: 'head',
          });
        }
      }
    }
  });
});
