import type { ChainEntry } from '../catalog/model/replaces-chain.js';
import { goQuote } from '../go-compat/go-format.js';
import { GraphError } from './errors.js';

/**
 * OLM's `sortChannel` (operator-lifecycle-manager v0.46.0, resolver.go): the order in which the resolver offers a
 * channel's entries. Entries replaced or skipped by another entry of the channel are not heads; from the single
 * head the `replaces` links are followed inside the channel and only entries **nobody skips** are kept. Entries
 * not on the head's chain never appear.
 *
 * @returns entry names, head first
 * @throws GraphError with OLM's messages (`no channel heads …`, `a cycle exists …`, `a unique replacement chain
 *   … is required …`)
 */
export function sortChannel(pkg: string, channel: string, entries: readonly ChainEntry[]): string[] {
  if (entries.length === 0) return [];
  const lookup = new Map<string, ChainEntry>();
  for (const e of entries) lookup.set(e.name, e);
  const replacedBy = new Set<string>();
  const replaces = new Map<string, string>();
  const skipped = new Set<string>();
  for (const e of entries) {
    if (e.replaces && lookup.has(e.replaces)) {
      replacedBy.add(e.replaces);
      replaces.set(e.name, e.replaces);
    }
    for (const s of e.skips ?? []) {
      if (lookup.has(s)) {
        replacedBy.add(s);
        skipped.add(s);
      }
    }
  }
  const heads = entries.filter((e) => !replacedBy.has(e.name));
  if (heads.length === 0) {
    throw new GraphError(
      'GRAPH_NO_CHANNEL_HEAD',
      `no channel heads (entries not replaced by another entry) found in channel ${goQuote(channel)} of package ${goQuote(pkg)}`,
    );
  }
  const chains: string[][] = [];
  for (const head of heads) {
    const chain: string[] = [];
    const visited = new Set<string>();
    let current = head.name;
    for (;;) {
      visited.add(current);
      if (!skipped.has(current)) chain.push(current);
      const next = replaces.get(current);
      if (next === undefined) break;
      if (visited.has(next)) {
        throw new GraphError(
          'GRAPH_REPLACES_CYCLE',
          `a cycle exists in the chain of replacement beginning with ${goQuote(head.name)} in channel ${goQuote(channel)} of package ${goQuote(pkg)}`,
        );
      }
      current = next;
    }
    chains.push(chain);
  }
  if (chains.length > 1) {
    const described = chains.map((c) =>
      c.length === 0 ? '[]' : c.length === 1 ? c[0]! : `${c[0]}...${c[c.length - 1]}`,
    );
    throw new GraphError(
      'GRAPH_MULTIPLE_CHAINS',
      `a unique replacement chain within a channel is required to determine the relative order between channel entries, but ${chains.length} replacement chains were found in channel ${goQuote(channel)} of package ${goQuote(pkg)}: ${described.join(', ')}`,
    );
  }
  return chains[0]!;
}
