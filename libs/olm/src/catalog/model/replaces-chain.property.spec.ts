import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ChainEntry, checkReplacesChain, replacesChainOf } from './replaces-chain.js';

// A fixed seed keeps `npm test` reproducible; FUZZ_RUNS=100000 searches longer on demand.
const params = { seed: 20261127, numRuns: Number(process.env.FUZZ_RUNS ?? 1000) };

/**
 * The cycle message as opm builds it: a path from every entry walked, each extended at every step; the cycle
 * is the path from the entry the walk came back to.
 */
function opmCycle(entries: readonly ChainEntry[], head: string): string | undefined {
  const byName = new Map(entries.map((e) => [e.name, e]));
  const skipped = new Set(entries.flatMap((e) => e.skips ?? []));
  const chainFrom = new Map<string, string[]>();
  const onChain = new Set([head]);
  let cur = byName.get(head);
  while (cur !== undefined) {
    if (!chainFrom.has(cur.name)) chainFrom.set(cur.name, [cur.name]);
    const replaces = cur.replaces ?? '';
    if (skipped.has(replaces)) return undefined;
    for (const path of chainFrom.values()) path.push(replaces);
    if (onChain.has(replaces)) return (chainFrom.get(replaces) ?? []).join(' -> ');
    onChain.add(replaces);
    cur = byName.get(replaces);
  }
  return undefined;
}

/** Channels of a few entries whose replaces and skips point anywhere among them, or outside. */
const channel = fc
  .uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g'), { minLength: 1, maxLength: 7 })
  .chain((names) => {
    const target = fc.constantFrom(...names, 'outside', '');
    return fc.tuple(
      ...names.map((name) =>
        fc.record(
          { name: fc.constant(name), replaces: target, skips: fc.array(target, { maxLength: 2 }) },
          { requiredKeys: ['name'] },
        ),
      ),
    );
  });

describe('checkReplacesChain', () => {
  it('names the same cycle as opm’s walk, whatever the graph', () => {
    fc.assert(
      fc.property(channel, (entries) => {
        const result = checkReplacesChain(entries);
        const expected = result.head === undefined ? undefined : opmCycle(entries, result.head);
        expect(result.kind === 'cycle').toBe(expected !== undefined);
        if (expected !== undefined) {
          expect(result.error).toBe(`detected cycle in replaces chain of upgrade graph: ${expected}`);
        }
      }),
      params,
    );
  });

  it('works a converted channel out once', () => {
    const converted = { bundles: new Map([['b', { name: 'b', replaces: 'a' }]]) };
    expect(replacesChainOf(converted)).toBe(replacesChainOf(converted));
    expect(replacesChainOf(converted).chain).toEqual(['b']);
  });
});
