import { describe, expect, it } from 'vitest';
import { sortChannel } from './channel-order.js';
import { GraphError } from './errors.js';

describe('sortChannel (OLM resolver order)', () => {
  it('orders the head first and drops skipped entries', () => {
    expect(
      sortChannel('p', 'c', [
        { name: 'a' },
        { name: 'b', replaces: 'a' },
        { name: 'c', replaces: 'b', skips: ['b'] },
      ]),
    ).toEqual(['c', 'a']);
  });

  it('fails like OLM when no entry is a head', () => {
    expect(() =>
      sortChannel('p', 'c', [
        { name: 'a', replaces: 'b' },
        { name: 'b', replaces: 'a', skips: ['a'] },
      ]),
    ).toThrow(
      new GraphError(
        'GRAPH_NO_CHANNEL_HEAD',
        'no channel heads (entries not replaced by another entry) found in channel "c" of package "p"',
      ),
    );
  });

  it('fails like OLM on several replacement chains', () => {
    expect(() => sortChannel('p', 'c', [{ name: 'a' }, { name: 'b' }, { name: 'c', replaces: 'b' }])).toThrow(
      'a unique replacement chain within a channel is required to determine the relative order between channel entries, but 2 replacement chains were found in channel "c" of package "p": a, c...b',
    );
  });

  it('fails like OLM on a cycle below the head', () => {
    expect(() =>
      sortChannel('p', 'c', [
        { name: 'h', replaces: 'a' },
        { name: 'a', replaces: 'b' },
        { name: 'b', replaces: 'a' },
      ]),
    ).toThrow('a cycle exists in the chain of replacement beginning with "h" in channel "c" of package "p"');
  });
});
