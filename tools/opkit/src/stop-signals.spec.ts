import { afterEach, describe, expect, it, vi } from 'vitest';
import { runStoppable } from './stop-signals.js';

afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = undefined;
});

/** The listener `runStoppable` added for `signal`, called as the signal would call it. */
function deliver(signal: NodeJS.Signals, before: readonly NodeJS.SignalsListener[]): void {
  const added = process.listeners(signal).find((l) => !before.includes(l));
  expect(added).toBeDefined();
  added?.(signal);
}

describe('runStoppable', () => {
  it('aborts the work on SIGINT, waits for it to clean up, then ends the process by that signal', async () => {
    const kill = vi.spyOn(process, 'kill').mockImplementation(() => true);
    const before = process.listeners('SIGINT');
    let cleanedUp = false;
    const running = runStoppable(
      (signal) =>
        new Promise<void>((_, reject) => {
          signal.addEventListener('abort', () => {
            cleanedUp = true;
            reject(signal.reason);
          });
        }),
    );
    deliver('SIGINT', before);
    await running;
    expect(cleanedUp).toBe(true);
    expect(kill).toHaveBeenCalledWith(process.pid, 'SIGINT');
    expect(process.exitCode).toBe(130);
    // The signals have their default action back.
    expect(process.listeners('SIGINT')).toEqual(before);
  });

  it('without a signal, gives the work its result or error and leaves the signals as they were', async () => {
    const kill = vi.spyOn(process, 'kill').mockImplementation(() => true);
    const before = process.listeners('SIGTERM');
    await runStoppable(async () => {});
    await expect(
      runStoppable(async () => {
        throw new Error('no such catalog');
      }),
    ).rejects.toThrow('no such catalog');
    expect(kill).not.toHaveBeenCalled();
    expect(process.listeners('SIGTERM')).toEqual(before);
  });
});
