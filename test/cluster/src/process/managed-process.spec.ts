import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManagedProcess } from './managed-process.js';

let dir: string | undefined;
const strays: number[] = [];

afterEach(() => {
  for (const pid of strays.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A process running `script` in sh, its output logged to a file of a fresh directory. */
function shell(script: string): { proc: ManagedProcess; logFile: string } {
  dir = mkdtempSync(join(tmpdir(), 'managed-process-'));
  const logFile = join(dir, 'out.log');
  return { proc: new ManagedProcess({ name: 'sh', command: 'sh', args: ['-c', script], logFile }), logFile };
}

/** What the log holds so far (the file is created as the process starts). */
const logged = (logFile: string) => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('ManagedProcess.stop', () => {
  it('GIVEN a child whose own child keeps its output open WHEN stopped THEN it resolves soon after the exit, with the output logged', async () => {
    // The background sleep inherits the pipes and outlives the shell, which SIGTERM ends.
    const { proc, logFile } = shell('sleep 60 & echo "stray $!"; echo last words; exec sleep 60');
    await proc.start();
    await until(() => logged(logFile).includes('last words'));
    const stray = Number(/stray (\d+)/.exec(logged(logFile))?.[1]);
    strays.push(stray);
    const started = performance.now();
    await proc.close();
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(proc.running).toBe(false);
    expect(logged(logFile)).toContain('last words');
  });

  it('GIVEN a child that has exited on its own WHEN stopped THEN it resolves at once', async () => {
    const { proc, logFile } = shell('echo done');
    await proc.start();
    await proc.exited;
    const started = performance.now();
    await proc.close();
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(logged(logFile)).toBe('done\n');
  });
});
