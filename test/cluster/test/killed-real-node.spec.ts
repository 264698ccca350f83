// A cluster with a real node whose process is killed outright: its reaper undoes everything the node set up
// on the host. The one file here that needs the machine's real node besides workloads and OLM; the rest of the
// cluster's lifecycle (kwok-only clusters, the CLI, the toolchain's errors) is lifecycle.spec.ts's.
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { eventually } from '../src/testing/index.js';
import { pidAlive } from '../src/toolchain/cache.js';

const run = promisify(execFile);
/** What a real node sets up on the host: its bridge, iptables chains, and mounts under its directory. */
async function hostState(dir?: string): Promise<{ bridge: boolean; chains: boolean; mounts?: boolean }> {
  const links = await run('ip', ['-o', 'link', 'show']);
  const rules = await run('iptables-save');
  const state = {
    bridge: /\bopkit0:/.test(links.stdout),
    chains: /^:(KUBE-|OPKIT-)/m.test(rules.stdout),
  };
  if (!dir) return state;
  const mounts = await run('cat', ['/proc/self/mountinfo']);
  return { ...state, mounts: mounts.stdout.includes(dir) || mounts.stdout.includes('/var/lib/kubelet') };
}

describe('a killed cluster with a real node', () => {
  it('leaves no process, container, mount, iptables chain, bridge or temp dir behind when killed', async () => {
    const child = spawn(
      process.execPath,
      [
        '--conditions=@opkit/source',
        '--import',
        'tsx',
        join(import.meta.dirname, 'fixtures', 'cluster-then-hang.ts'),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const started = await new Promise<{ dir: string; pids: number[] }>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0] ?? ''));
      });
      child.once('exit', (code) => reject(new Error(`fixture exited ${code}`)));
    });
    try {
      // etcd, apiserver, controller-manager, scheduler, registry, containerd, kubelet, kube-proxy, CoreDNS and
      // the pod's container.
      expect(started.pids.length).toBeGreaterThanOrEqual(10);
      expect(started.pids.every(pidAlive)).toBe(true);
      expect(await hostState()).toMatchObject({ bridge: true, chains: true });
    } finally {
      child.kill('SIGKILL');
    }
    await eventually('every process to be gone', async () => started.pids.every((pid) => !pidAlive(pid)), {
      timeoutMs: 20_000,
    });
    await eventually('the temp dir to be removed', async () => !existsSync(started.dir), {
      timeoutMs: 20_000,
    });
    expect(await hostState(started.dir)).toEqual({ bridge: false, chains: false, mounts: false });
  });
});
