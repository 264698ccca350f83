// One command run to its end, timed, with its peak memory: the high-water mark of its resident set, which Linux
// keeps in /proc/<pid>/status (VmHWM). Node cannot read a child's rusage, so the mark is read every few
// milliseconds while the child runs; growth in its last milliseconds can be missed, alike for both tools.
import { spawn } from 'node:child_process';
import { procStatusKib } from '../converge/process-usage.js';

/** What one run took. */
export interface MeasuredRun {
  readonly ms: number;
  /** Peak resident set in KiB, or `undefined` where /proc cannot tell (not Linux). */
  readonly peakRssKib: number | undefined;
  readonly stdout: string;
}

const POLL_MS = 2;

/**
 * Runs `command args…` to its end, keeping its stdout (as text, for comparing outputs) and its peak memory.
 * `okExitCodes` are the exit codes that are results, not failures (a gate's 1 says "refused").
 *
 * @throws Error when the command exits otherwise, with the end of its stderr
 */
export async function measuredRun(
  command: string,
  args: readonly string[],
  okExitCodes: readonly number[] = [0],
): Promise<MeasuredRun & { readonly exitCode: number }> {
  const started = performance.now();
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => out.push(d));
  child.stderr.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  let peak: number | undefined;
  const sample = () => {
    if (child.pid === undefined) return;
    const hwm = procStatusKib(child.pid, 'VmHWM');
    if (hwm !== undefined) peak = Math.max(peak ?? 0, hwm);
  };
  const timer = setInterval(sample, POLL_MS);
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', resolve);
    });
    const ms = performance.now() - started;
    if (code === null || !okExitCodes.includes(code)) {
      throw new Error(`${command} ${args.join(' ')} exited with ${code}:\n${stderr}`);
    }
    return { ms, peakRssKib: peak, stdout: Buffer.concat(out).toString('utf8'), exitCode: code };
  } finally {
    clearInterval(timer);
  }
}
