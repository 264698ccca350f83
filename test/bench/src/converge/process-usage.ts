import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** CPU time and memory of one process, from /proc. */
export interface ProcessUsage {
  /** user + system CPU time so far, in seconds. */
  readonly cpuSeconds: number;
  /** Peak resident set size (VmHWM), in bytes. */
  readonly peakRssBytes: number;
  /** Current resident set size (VmRSS), in bytes. */
  readonly rssBytes: number;
}

let ticksPerSecond: number | undefined;

function clockTicks(): number {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  return ticksPerSecond;
}

/** utime + stime from `/proc/<pid>/stat`, in seconds. */
export function parseCpuSeconds(stat: string, ticks: number): number {
  // The command name (field 2) may hold spaces and parentheses: fields are counted after its last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the name: state is field 3, so utime (14) and stime (15) are at offsets 11 and 12.
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime))
    throw new Error(`cannot read utime/stime from: ${stat}`);
  return (utime + stime) / ticks;
}

/** A `VmXXX:   1234 kB` line of `/proc/<pid>/status`, in bytes. */
export function parseStatusKb(status: string, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
  if (!match) throw new Error(`/proc status has no ${field} line`);
  return Number(match[1]) * 1024;
}

export function processUsage(pid: number): ProcessUsage {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return {
    cpuSeconds: parseCpuSeconds(stat, clockTicks()),
    peakRssBytes: parseStatusKb(status, 'VmHWM'),
    rssBytes: parseStatusKb(status, 'VmRSS'),
  };
}
