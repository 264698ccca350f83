import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ClusterError } from '../errors.js';
import { cacheRoot, pidAlive } from '../toolchain/cache.js';
import { NODE_NETWORK } from './addresses.js';

/**
 * Host-wide paths the kubelet, containerd and the CNI plugins write whatever their configured roots are, so
 * only one real node can run on a machine at a time. Those that did not exist before the node started are
 * removed when it stops.
 */
const FIXED_HOST_PATHS = [
  '/var/lib/kubelet',
  '/var/log/containers',
  '/var/log/pods',
  '/var/lib/cni',
  '/run/containerd',
  '/opt/containerd',
] as const;

/** Kernel settings the node changes: forwarding (pod → ClusterIP → pod) and those the kubelet sets itself. */
const SYSCTLS = [
  'net/ipv4/ip_forward',
  'kernel/panic',
  'kernel/panic_on_oops',
  'vm/overcommit_memory',
] as const;

/** The kubelet's cgroup root, created in every cgroup hierarchy. */
export const CGROUP_ROOT = '/opkit';

/** What the node's cleanup needs to know, written before anything is changed on the host. */
export interface HostClaim {
  readonly pid: number;
  readonly clusterDir: string;
  /** Executables whose processes are the node's (containerd's shims outlive containerd). */
  readonly executables: readonly string[];
  readonly sysctls: Readonly<Record<string, string>>;
  readonly createdPaths: readonly string[];
}

const claimDir = () => join(cacheRoot(), 'node');
const claimFile = () => join(claimDir(), 'claim.json');
const scriptFile = () => join(claimDir(), 'cleanup.sh');

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/**
 * The whole cleanup as one shell script, so the same steps run on a normal stop, from the reaper when the
 * process that started the node is killed outright, and on the next start after a crash of the machine's
 * previous node.
 */
export function cleanupScript(claim: HostClaim): string {
  const { bridge } = NODE_NETWORK;
  const lines = [
    '#!/bin/sh',
    '# Removes everything a real test node set up on this host. Safe to run more than once.',
    `exes=${quote(claim.executables.join(' '))}`,
    'kill_exes() {',
    '  for p in /proc/[0-9]*; do',
    '    exe=$(readlink "$p/exe" 2>/dev/null) || continue',
    '    for e in $exes; do [ "$exe" = "$e" ] && kill -9 "$(basename "$p")" 2>/dev/null; done',
    '  done',
    '}',
    'kill_exes',
    "# Every container process lives in a cgroup under the kubelet's cgroup root.",
    'for round in 1 2 3 4 5; do',
    `  for h in /sys/fs/cgroup/*${CGROUP_ROOT} /sys/fs/cgroup/unified${CGROUP_ROOT}; do`,
    '    [ -d "$h" ] || continue',
    '    find "$h" -name cgroup.procs -exec cat {} + 2>/dev/null | xargs -r kill -9 2>/dev/null',
    '    find "$h" -depth -type d -exec rmdir {} + 2>/dev/null',
    '  done',
    '  kill_exes',
    '  sleep 0.2',
    'done',
    '# Mounts (pod volumes, network namespaces, overlay snapshots, shm), deepest first.',
    `for root in ${[claim.clusterDir, ...FIXED_HOST_PATHS].map(quote).join(' ')}; do`,
    '  awk -v r="$root" \'$5 == r || index($5, r "/") == 1 { print $5 }\' /proc/self/mountinfo | sort -r |',
    '    while read -r m; do umount -l "$m" 2>/dev/null; done',
    'done',
    '# iptables chains of kube-proxy (KUBE-*), the kubelet (KUBE-FIREWALL, KUBE-KUBELET-CANARY), the CNI',
    "# portmap plugin (CNI-*) and the node's own isolation chain (OPKIT-*), for IPv4 and IPv6.",
    'for t in iptables ip6tables; do',
    '  command -v "$t-save" >/dev/null || continue',
    '  if "$t-save" | grep -qE "KUBE-|CNI-|OPKIT-"; then',
    '    "$t-save" | grep -vE "KUBE-|CNI-|OPKIT-" | "$t-restore" 2>/dev/null',
    '  fi',
    'done',
    `ip link delete ${bridge} 2>/dev/null`,
    ...Object.entries(claim.sysctls).map(
      ([key, value]) => `echo ${quote(value)} > /proc/sys/${key} 2>/dev/null`,
    ),
    ...claim.createdPaths.map((p) => `rm -rf ${quote(p)}`),
    `rm -rf ${quote(claim.clusterDir)}`,
    `rm -f ${quote(claimFile())}`,
    'exit 0',
    '',
  ];
  return lines.join('\n');
}

function runCleanup(): void {
  if (!existsSync(scriptFile())) return;
  spawnSync('sh', [scriptFile()], { stdio: 'ignore' });
}

/** The machine's one real node, held by this process until {@link NodeHostClaim.release}. */
export interface NodeHostClaim {
  /** Removes everything the node set up on the host, then gives up the claim. */
  release(): void;
}

/**
 * Claims the host for a real node. A claim left by a process that no longer runs is cleaned up first (the
 * next start after a SIGKILL); a live one is refused with what to do instead. A detached reaper runs the
 * cleanup as soon as this process dies, however it dies.
 */
export function claimHost(clusterDir: string, executables: readonly string[]): NodeHostClaim {
  if (process.getuid?.() !== 0) {
    throw new ClusterError(
      'CLUSTER_NODE_NEEDS_ROOT',
      'a real node (kubelet, containerd, pod networking) needs root: run as root, or start a kwok-only cluster (realNode: false, or --no-real-node)',
    );
  }
  mkdirSync(claimDir(), { recursive: true });
  if (existsSync(claimFile())) {
    const previous = JSON.parse(readFileSync(claimFile(), 'utf8')) as HostClaim;
    if (pidAlive(previous.pid) && previous.pid !== process.pid) {
      throw new ClusterError(
        'CLUSTER_NODE_BUSY',
        `this machine already runs a real node (process ${previous.pid}, cluster ${previous.clusterDir}); the kubelet's fixed host paths allow one per machine: stop that cluster, or start a kwok-only cluster (realNode: false, or --no-real-node)`,
      );
    }
    runCleanup();
  }
  const claim: HostClaim = {
    pid: process.pid,
    clusterDir,
    executables,
    sysctls: Object.fromEntries(
      SYSCTLS.map((key) => [key, readFileSync(`/proc/sys/${key}`, 'utf8').trim()] as const),
    ),
    createdPaths: FIXED_HOST_PATHS.filter((p) => !existsSync(p)),
  };
  // The script first, then the claim: a claim file always has its cleanup next to it.
  writeFileSync(scriptFile(), cleanupScript(claim), { mode: 0o700 });
  writeFileSync(claimFile(), JSON.stringify(claim, null, 2));
  const reaper = spawn(
    'sh',
    [
      '-c',
      'while kill -0 "$0" 2>/dev/null; do sleep 1; done; exec sh "$1"',
      String(process.pid),
      scriptFile(),
    ],
    { detached: true, stdio: 'ignore' },
  );
  reaper.unref();
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      // The watcher stays until the cleanup is done: if this process dies half-way, it runs it again.
      runCleanup();
      try {
        reaper.kill('SIGKILL');
      } catch {
        // already gone
      }
    },
  };
}
