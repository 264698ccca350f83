import { constants } from 'node:os';

/** SIGINT and SIGTERM, taken for the whole command: the first one aborts `signal` and is remembered. */
export interface StopSignals {
  readonly signal: AbortSignal;
  readonly received: () => NodeJS.Signals | undefined;
  /** Gives the signals back to their default action. */
  readonly release: () => void;
}

/** Takes SIGINT and SIGTERM until `release`; `onStop` hears the first one (to say that the command stops). */
export function takeStopSignals(onStop?: (signal: NodeJS.Signals) => void): StopSignals {
  const controller = new AbortController();
  let received: NodeJS.Signals | undefined;
  const stop = (signal: NodeJS.Signals): void => {
    if (received !== undefined) return;
    received = signal;
    onStop?.(signal);
    controller.abort(new Error(`${signal} received`));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return {
    signal: controller.signal,
    received: () => received,
    release: () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
  };
}

/** Ends the process by `signal`, as it would have ended without handlers, once nothing is left behind. */
export function endBySignal(signal: NodeJS.Signals): void {
  process.exitCode = 128 + (constants.signals[signal] ?? 0);
  process.kill(process.pid, signal);
}

/**
 * Runs a command's `work` with SIGINT and SIGTERM taken: the first one aborts the signal `work` is given, which
 * stops a git tree being read, an image being pulled or unpacked, and removes their temp dirs; once `work` has
 * settled, the process ends by that signal. Without a signal, `work`'s result or error is the command's.
 */
export async function runStoppable(work: (signal: AbortSignal) => Promise<void>): Promise<void> {
  const stop = takeStopSignals();
  try {
    await work(stop.signal);
  } catch (err) {
    if (!stop.signal.aborted) throw err;
  } finally {
    stop.release();
  }
  const signal = stop.received();
  if (signal !== undefined) endBySignal(signal);
}
