import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CGROUP_ROOT } from './host-claim.js';

const CGROUP_FS = '/sys/fs/cgroup';

/**
 * Creates the kubelet's cgroup root in every mounted hierarchy, as the kubelet insists on finding it. On
 * cgroup v1 a new cpuset is empty and would admit no task, so it gets its parent's CPUs and memory nodes.
 * The host claim's cleanup removes it.
 */
export function createCgroupRoot(): void {
  for (const hierarchy of readdirSync(CGROUP_FS)) {
    const parent = join(CGROUP_FS, hierarchy);
    if (!existsSync(join(parent, 'cgroup.procs'))) continue;
    const dir = join(parent, CGROUP_ROOT);
    mkdirSync(dir, { recursive: true });
    if (hierarchy === 'cpuset') {
      for (const file of ['cpuset.cpus', 'cpuset.mems']) {
        writeFileSync(join(dir, file), readFileSync(join(parent, file), 'utf8'));
      }
    }
  }
}
