import { readFileSync } from 'node:fs';
import { arch, availableParallelism, cpus, loadavg, platform, release, totalmem } from 'node:os';

/** Where the figures were measured. */
export interface MachineInfo {
  readonly cpuModel: string;
  /** Logical CPUs the OS reports. */
  readonly logicalCores: number;
  /** CPUs this process may use (cgroup/affinity aware). */
  readonly availableParallelism: number;
  readonly totalMemoryBytes: number;
  readonly nodeVersion: string;
  readonly v8Version: string;
  readonly platform: string;
  readonly arch: string;
  readonly kernel: string;
  /** 1, 5 and 15 minute load averages when the run started: other work on the machine skews the figures. */
  readonly loadAverage: readonly number[];
}

function cpuModel(): string {
  try {
    const model = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim();
    if (model) return model;
  } catch {
    // not Linux: fall back to what Node reports
  }
  return cpus()[0]?.model.trim() || 'unknown';
}

export function machineInfo(): MachineInfo {
  return {
    cpuModel: cpuModel(),
    logicalCores: cpus().length,
    availableParallelism: availableParallelism(),
    totalMemoryBytes: totalmem(),
    nodeVersion: process.version,
    v8Version: process.versions.v8,
    platform: platform(),
    arch: arch(),
    kernel: release(),
    loadAverage: loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

export function formatMachine(m: MachineInfo): string {
  const gib = (m.totalMemoryBytes / 1024 ** 3).toFixed(1);
  return [
    `CPU:    ${m.cpuModel}`,
    `Cores:  ${m.logicalCores} logical (${m.availableParallelism} available to this process)`,
    `Memory: ${gib} GiB`,
    `Node:   ${m.nodeVersion} (V8 ${m.v8Version}) on ${m.platform}/${m.arch}, kernel ${m.kernel}`,
    `Load:   ${m.loadAverage.join(' ')} (1/5/15 min, at start)`,
  ].join('\n');
}
