import { describe, expect, it } from 'vitest';
import { parseCpuSeconds, parseStatusKb, processUsage, procStatusKib, statusKib } from './process-usage.js';

describe('/proc parsing', () => {
  it('reads utime + stime after a command name with spaces and parentheses', () => {
    const stat = '4242 (node (my op)) S 1 4242 4242 0 -1 4194560 9000 0 0 0 250 75 0 0 20 0 11 0 100 1 2';
    expect(parseCpuSeconds(stat, 100)).toBe(3.25);
  });

  it('reads VmHWM in bytes and names a missing field', () => {
    const status = 'Name:\tnode\nVmPeak:\t  999 kB\nVmHWM:\t  204800 kB\nVmRSS:\t  102400 kB\n';
    expect(parseStatusKb(status, 'VmHWM')).toBe(204800 * 1024);
    expect(() => parseStatusKb(status, 'VmSwap')).toThrow(/VmSwap/);
  });

  it('reads a figure in KiB, or none, for sampling a process that may be gone', () => {
    const status = 'Name:\tnode\nVmPeak:\t  900 kB\nVmHWM:\t   51234 kB\nVmRSS:\t   40000 kB\n';
    expect(statusKib(status, 'VmHWM')).toBe(51234);
    expect(statusKib(status, 'VmSwap')).toBeUndefined();
    if (process.platform === 'linux') {
      expect(procStatusKib(process.pid, 'VmRSS')).toBeGreaterThan(0);
      // Past the kernel's largest pid: no such process.
      expect(procStatusKib(1 << 23, 'VmRSS')).toBeUndefined();
    }
  });

  it('measures this process', () => {
    const usage = processUsage(process.pid);
    expect(usage.cpuSeconds).toBeGreaterThan(0);
    expect(usage.peakRssBytes).toBeGreaterThanOrEqual(usage.rssBytes);
  });
});
