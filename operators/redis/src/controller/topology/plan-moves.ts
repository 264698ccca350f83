// Which slots move from which primary to which, for one pass: pure planning, no command sent.

import type { Observed } from './types.js';

/** One pair of primaries and the slots the first hands to the second. */
export interface SlotMove {
  readonly from: Observed;
  readonly to: Observed;
  readonly slots: number[];
}

/** Slot moves: everything off the sources, then from primaries above their quota to those below it. */
export function planMoves(
  targets: readonly Observed[],
  sources: readonly Observed[],
  quota: ReadonlyMap<Observed, number>,
  budget: number,
): SlotMove[] {
  const spent = new Map<Observed, number>();
  const left = (from: Observed) => budget - (spent.get(from) ?? 0);
  const count = new Map(targets.map((t) => [t, t.self.slots.length]));
  const available = new Map<Observed, number[]>();
  for (const o of [...sources, ...targets]) available.set(o, [...o.self.slots]);
  const moves = new Map<string, SlotMove>();
  const give = (from: Observed, to: Observed, n: number) => {
    const slots = available.get(from)!.splice(-n, n);
    const key = `${from.self.id}>${to.self.id}`;
    const move = moves.get(key) ?? { from, to, slots: [] };
    move.slots.push(...slots);
    moves.set(key, move);
    if (count.has(from)) count.set(from, count.get(from)! - slots.length);
    count.set(to, count.get(to)! + slots.length);
    spent.set(from, (spent.get(from) ?? 0) + slots.length);
  };
  const neediest = () =>
    [...targets].sort((a, b) => quota.get(b)! - count.get(b)! - (quota.get(a)! - count.get(a)!))[0]!;
  for (const s of sources) {
    while (available.get(s)!.length > 0 && left(s) > 0) {
      const to = neediest();
      const room = Math.max(1, quota.get(to)! - count.get(to)!);
      give(s, to, Math.min(room, available.get(s)!.length, left(s)));
    }
  }
  for (const from of targets) {
    while (count.get(from)! > quota.get(from)! && left(from) > 0) {
      const to = neediest();
      const room = quota.get(to)! - count.get(to)!;
      if (room <= 0) break;
      give(from, to, Math.min(room, count.get(from)! - quota.get(from)!, left(from)));
    }
  }
  return [...moves.values()].filter((m) => m.slots.length > 0);
}
