import { describe, expect, it } from 'vitest';
import { checkReplacesChain } from './replaces-chain.js';

describe('checkReplacesChain (opm validate rules)', () => {
  it('accepts a linear chain whose tail replaces a bundle outside the channel', () => {
    const r = checkReplacesChain([
      { name: 'b', replaces: 'a' },
      { name: 'c', replaces: 'b' },
    ]);
    expect(r.error).toBeUndefined();
    expect(r.chain).toEqual(['c', 'b']);
  });

  it('never strands an entry that another entry skips', () => {
    const r = checkReplacesChain([
      { name: 'B' },
      { name: 'A', replaces: 'B' },
      { name: 'C', replaces: 'B', skips: ['A'] },
    ]);
    expect(r.error).toBeUndefined();
    expect(r.head).toBe('C');
  });

  it('reports every entry without incoming edge as a head, sorted', () => {
    expect(checkReplacesChain([{ name: 'z' }, { name: 'a' }]).error).toBe(
      'multiple channel heads found in graph: a, z',
    );
  });

  it('sorts the heads by bytes, as sort.Strings does, not by UTF-16 units', () => {
    // U+FFFF is EF BF BF in UTF-8 and comes before U+1F600 (F0 9F 98 80); in UTF-16 it comes after (D83D DE00).
    expect(checkReplacesChain([{ name: 'v\u{1f600}' }, { name: 'v\uffff' }]).error).toBe(
      'multiple channel heads found in graph: v\uffff, v\u{1f600}',
    );
  });

  it('reports a pure cycle as having no head', () => {
    expect(
      checkReplacesChain([
        { name: 'a', replaces: 'b' },
        { name: 'b', replaces: 'a' },
      ]).error,
    ).toBe('no channel head found in graph');
  });

  it('prints a cycle from its first repeated entry', () => {
    const r = checkReplacesChain([
      { name: 'h', replaces: 'a' },
      { name: 'a', replaces: 'b' },
      { name: 'b', replaces: 'a' },
    ]);
    expect(r.error).toBe('detected cycle in replaces chain of upgrade graph: a -> b -> a');
  });

  it('stops the walk at a skipped replaces target (PR #1750), stranding what lies behind it', () => {
    const r = checkReplacesChain([
      { name: '1.0.0' },
      { name: '1.1.0', replaces: '1.0.0' },
      { name: '1.1.2', replaces: '1.1.0' },
      { name: '1.1.4', replaces: '1.1.2', skips: ['1.1.2'] },
    ]);
    expect(r.error).toBe('channel contains one or more stranded bundles: 1.0.0, 1.1.0');
  });

  it('ignores skipRange: an entry only a skipRange reaches is stranded', () => {
    const r = checkReplacesChain([
      { name: '1.0.0' },
      { name: '1.0.1', replaces: '1.0.0' },
      { name: '1.1.0', skips: ['1.0.1'] },
    ]);
    expect(r.stranded).toEqual(['1.0.0']);
  });
});
