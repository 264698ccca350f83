import { describe, expect, it } from 'vitest';
import { untilQuiet } from './aftermath.js';

/** An operator whose write counter reads `counts[i]` at the i-th poll, one poll a second on a fake clock. */
function operatorWriting(counts: readonly number[]) {
  let clock = 100_000;
  let poll = 0;
  return {
    writesSoFar: async () => counts[Math.min(poll++, counts.length - 1)] ?? 0,
    now: () => clock,
    sleep: async (ms: number) => {
      clock += ms;
    },
    get polls() {
      return poll;
    },
  };
}

/** Quiet after 3 s without a write, a poll a second, at most a minute. */
const POLLING = { quietMs: 3000, capMs: 60_000, pollMs: 1000 };

describe('untilQuiet', () => {
  it('counts nothing when the operator made no write since the phase ended', async () => {
    const op = operatorWriting([40, 40, 40, 40]);
    const after = await untilQuiet(op.writesSoFar, 100_000, 40, { ...POLLING, ...op });
    expect(after).toEqual({ elapsedMs: 0, writes: 0, capped: false });
    expect(op.polls).toBe(4);
  });

  it('counts the writes that come after the phase, up to the last one before a quiet window', async () => {
    const op = operatorWriting([40, 45, 45, 52, 52, 52, 52, 52]);
    const after = await untilQuiet(op.writesSoFar, 100_000, 40, { ...POLLING, ...op });
    expect(after).toEqual({ elapsedMs: 3000, writes: 12, capped: false });
  });

  it('says so when the operator still writes at the cap', async () => {
    const op = operatorWriting(Array.from({ length: 100 }, (_, i) => 40 + i));
    const after = await untilQuiet(op.writesSoFar, 100_000, 40, { ...POLLING, capMs: 10_000, ...op });
    expect(after).toEqual({ elapsedMs: 10_000, writes: 10, capped: true });
  });
});
