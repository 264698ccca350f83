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

/** The `<field>:   <n> kB` figure of a `/proc/<pid>/status` text in KiB, `undefined` when it has none. */
export function statusKib(status: string, field: string): number | undefined {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
  return match ? Number(match[1]) : undefined;
}

/** A `VmXXX:   1234 kB` line of `/proc/<pid>/status`, in bytes. */
export function parseStatusKb(status: string, field: string): number {
  const kib = statusKib(status, field);
  if (kib === undefined) throw new Error(`/proc status has no ${field} line`);
  return kib * 1024;
}

/**
 * A figure of `/proc/<pid>/status` in KiB, `undefined` when the process is gone or there is no /proc: for
 * sampling a child that may end between two samples.
 */
export function procStatusKib(pid: number, field: 'VmHWM' | 'VmRSS'): number | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  return statusKib(status, field);
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
