import { describe, expect, it } from 'vitest';
import { FakeClock, realClock } from './clock.js';

describe('FakeClock', () => {
  it('fires due timers in deadline order, each seeing its own deadline as now', () => {
    const clock = new FakeClock(1_000);
    const fired: string[] = [];
    clock.setTimeout(() => fired.push(`b@${clock.now()}`), 20);
    clock.setTimeout(() => fired.push(`a@${clock.now()}`), 10);
    clock.setTimeout(() => fired.push(`c@${clock.now()}`), 30);
    clock.advance(25);
    expect(fired).toEqual(['a@1010', 'b@1020']);
    expect(clock.now()).toBe(1_025);
    expect(clock.pendingTimers).toBe(1);
  });

  it('fires timers scheduled by other timers when they fall inside the window', () => {
    const clock = new FakeClock();
    const fired: number[] = [];
    clock.setTimeout(() => clock.setTimeout(() => fired.push(clock.now()), 5), 5);
    clock.advance(10);
    expect(fired).toEqual([10]);
  });

  it('does not fire cleared timers', () => {
    const clock = new FakeClock();
    let fired = false;
    const handle = clock.setTimeout(() => {
      fired = true;
    }, 1);
    clock.clearTimeout(handle);
    clock.advance(10);
    expect(fired).toBe(false);
    expect(clock.pendingTimers).toBe(0);
  });
});

describe('realClock', () => {
  it('is monotonic and runs timers', async () => {
    const before = realClock.now();
    await new Promise<void>((resolve) => realClock.setTimeout(resolve, 2));
    expect(realClock.now()).toBeGreaterThan(before);
  });
});
