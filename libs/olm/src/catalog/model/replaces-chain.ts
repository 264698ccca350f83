import { byteOrder } from '../../go-compat/go-format.js';

/** The upgrade-edge view of a channel entry that the replaces-chain rules need. */
export interface ChainEntry {
  readonly name: string;
  readonly replaces?: string;
  readonly skips?: readonly string[];
}

/** A channel's head could not be determined; `message` is opm's. */
export type HeadResult =
  | { readonly head: string }
  | { readonly error: string; readonly heads: readonly string[] };

/**
 * opm's `Channel.Head`: the entries nobody replaces or skips. Exactly one is required (`no channel head found in
 * graph` / `multiple channel heads found in graph: a, b`).
 */
export function channelHead(entries: readonly ChainEntry[]): HeadResult {
  const incoming = new Set<string>();
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    if (e.replaces) incoming.add(e.replaces);
    addSkips(e, incoming);
  }
  const heads = entries.filter((e) => !incoming.has(e.name)).map((e) => e.name);
  if (heads.length === 0) return { error: 'no channel head found in graph', heads };
  if (heads.length > 1) {
    // opm sorts the head names with sort.Strings: by bytes.
    const sorted = [...heads].sort(byteOrder);
    return { error: `multiple channel heads found in graph: ${sorted.join(', ')}`, heads: sorted };
  }
  return { head: heads[0]! };
}

// Loops here are indexed: they run once per channel entry, mostly before V8 optimizes them, and an iterator
// costs an object per step until then.
function addSkips(e: ChainEntry, to: Set<string>): void {
  const skips = e.skips;
  if (skips !== undefined) for (let i = 0; i < skips.length; i++) to.add(skips[i]!);
}

/** Outcome of {@link checkReplacesChain}. */
export interface ReplacesChainResult {
  /** opm's message when the channel breaks a rule. */
  readonly error?: string;
  readonly kind?: 'no-head' | 'multiple-heads' | 'cycle' | 'stranded';
  /** The head, when there is exactly one. */
  readonly head?: string;
  /** Entries on the replaces chain from the head (stopping at skipped entries), head first. */
  readonly chain: readonly string[];
  /** Entries skipped by some entry. */
  readonly skipped: ReadonlySet<string>;
  /** Entries neither on the chain nor skipped (sorted). */
  readonly stranded: readonly string[];
}

/**
 * opm's `Channel.validateReplacesChain` (operator-registry v1.73.0): one head; walk `replaces` from it, stopping
 * when the next entry is skipped by anyone (skipped bundles are not part of the chain); a repeated entry is a
 * cycle (`detected cycle in replaces chain of upgrade graph: a -> b -> a`); every entry neither on the chain nor
 * skipped is stranded (`channel contains one or more stranded bundles: x, y`). skipRange plays no part.
 */
export function checkReplacesChain(entries: readonly ChainEntry[]): ReplacesChainResult {
  const byName = new Map<string, ChainEntry>();
  const skipped = new Set<string>();
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    byName.set(e.name, e);
    addSkips(e, skipped);
  }
  const head = channelHead([...byName.values()]);
  if ('error' in head) {
    const kind = head.heads.length === 0 ? 'no-head' : 'multiple-heads';
    return { error: head.error, kind, chain: [], skipped, stranded: [] };
  }
  // The entries walked, in order, and where each was: opm keeps a path from every entry walked and extends
  // them all at each step, which is this list's tail from that entry's place.
  const walked: string[] = [];
  const walkedAt = new Map<string, number>();
  const onChain = new Set<string>([head.head]);
  const chain = [head.head];
  let cur: ChainEntry | undefined = byName.get(head.head);
  while (cur !== undefined) {
    if (!walkedAt.has(cur.name)) walkedAt.set(cur.name, walked.length);
    walked.push(cur.name);
    const replaces = cur.replaces ?? '';
    if (skipped.has(replaces)) break;
    if (onChain.has(replaces)) {
      const from = walkedAt.get(replaces);
      const cycle = from === undefined ? '' : [...walked.slice(from), replaces].join(' -> ');
      return {
        error: `detected cycle in replaces chain of upgrade graph: ${cycle}`,
        kind: 'cycle',
        head: head.head,
        chain,
        skipped,
        stranded: [],
      };
    }
    onChain.add(replaces);
    if (byName.has(replaces)) chain.push(replaces);
    cur = byName.get(replaces);
  }
  const stranded = [...byName.keys()].filter((n) => !onChain.has(n) && !skipped.has(n)).sort(byteOrder);
  if (stranded.length > 0) {
    return {
      error: `channel contains one or more stranded bundles: ${stranded.join(', ')}`,
      kind: 'stranded',
      head: head.head,
      chain,
      skipped,
      stranded,
    };
  }
  return { head: head.head, chain, skipped, stranded };
}

/**
 * {@link checkReplacesChain} of a channel of a converted model, worked out once and kept on the channel
 * (`replacesChain`): validation and the lint both need it, and a model does not change once converted.
 */
export function replacesChainOf(channel: {
  readonly bundles: ReadonlyMap<string, ChainEntry>;
  replacesChain?: ReplacesChainResult;
}): ReplacesChainResult {
  channel.replacesChain ??= checkReplacesChain([...channel.bundles.values()]);
  return channel.replacesChain;
}
