import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { oneChannel } from '../declcfg/spec-fixtures.js';
import type { ChannelEntry } from '../declcfg/types.js';
import { validateCatalog } from './validate.js';

// A fixed seed keeps `npm test` reproducible; FUZZ_RUNS=100000 searches longer on demand.
const params = { seed: 20261127, numRuns: Number(process.env.FUZZ_RUNS ?? 300) };

interface Gvk {
  readonly group: string;
  readonly kind: string;
  readonly version: string;
}

const keyOf = (g: Gvk): string => `${g.group}/${g.version}, Kind=${g.kind}`;

/**
 * The rule written out edge by edge, without the lint's shortcut for bundles that provide the same APIs: every
 * API of a predecessor (replaced or skipped) that the bundle does not provide, while it still provides the kind.
 */
function removedApis(entries: readonly ChannelEntry[], gvks: readonly Gvk[][]): string[] {
  const provided = new Map(entries.map((e, i) => [e.name, gvks[i] ?? []]));
  const out: string[] = [];
  for (const entry of [...entries].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const next = provided.get(entry.name) ?? [];
    const nextKeys = new Set(next.map(keyOf));
    for (const from of [entry.replaces ?? '', ...(entry.skips ?? [])]) {
      if (from === '') continue;
      const previousKeys = new Set((provided.get(from) ?? []).map(keyOf));
      for (const key of previousKeys) {
        const gvk = (provided.get(from) ?? []).find((g) => keyOf(g) === key) as Gvk;
        if (nextKeys.has(key)) continue;
        if (!next.some((g) => g.group === gvk.group && g.kind === gvk.kind)) continue;
        out.push(`${entry.name} drops ${key} of ${from}`);
      }
    }
  }
  return out;
}

describe('the removed API version warning', () => {
  it('warns on exactly the edges the rule names, whichever APIs the bundles provide', () => {
    const gvk = fc.record({
      group: fc.constantFrom('a.io', 'b.io'),
      kind: fc.constantFrom('K', 'L'),
      version: fc.constantFrom('v1', 'v2'),
    });
    const bundles = fc.integer({ min: 1, max: 6 }).chain((count) =>
      fc.tuple(
        fc.array(fc.array(gvk, { maxLength: 3 }), { minLength: count, maxLength: count }),
        fc.array(fc.array(fc.nat({ max: count }), { maxLength: 3 }), {
          minLength: count,
          maxLength: count,
        }),
      ),
    );
    fc.assert(
      fc.property(bundles, ([gvks, skipPicks]) => {
        const names = gvks.map((_, i) => `foo.v${i + 1}.0.0`);
        const entries: ChannelEntry[] = names.map((name, i) => {
          const entry: ChannelEntry = { name };
          if (i > 0) entry.replaces = names[i - 1];
          const skips = [
            ...new Set((skipPicks[i] ?? []).filter((k) => k < i).map((k) => names[k] as string)),
          ];
          if (skips.length > 0) entry.skips = skips;
          return entry;
        });
        const catalog = oneChannel(entries);
        catalog.bundles.forEach((bundle, i) => {
          for (const g of gvks[i] ?? []) bundle.properties.push({ type: 'olm.gvk', value: { ...g } });
        });
        const warned = validateCatalog(catalog)
          .filter((r) => r.code === 'API_VERSION_REMOVED')
          .map((r) => {
            const [, key, from] = /no longer serves (.+), which "(.+)" does/.exec(r.message) ?? [];
            return `${r.bundle} drops ${key} of ${from}`;
          });
        expect(warned).toEqual(removedApis(entries, gvks));
      }),
      params,
    );
  });
});
