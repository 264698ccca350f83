import { describe, expect, it } from 'vitest';
import { measuredRun } from './measured-run.js';

describe('measuredRun', () => {
  it.runIf(process.platform === 'linux')('sees a child that holds 100 MB at its peak', async () => {
    const script =
      'const b = Buffer.alloc(100 << 20, 1); setTimeout(() => process.stdout.write(String(b[5])), 100);';
    const run = await measuredRun(process.execPath, ['-e', script]);
    expect(run.stdout).toBe('1');
    expect(run.peakRssKib).toBeGreaterThan(100 * 1024);
  });

  it('fails with the command and its stderr', async () => {
    await expect(
      measuredRun(process.execPath, ['-e', 'console.error("nope"); process.exit(3)']),
    ).rejects.toThrow(/exited with 3:\nnope/);
  });
});
