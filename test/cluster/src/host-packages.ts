import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { ClusterError } from './errors.js';

/** A Debian package the test world needs, with a file that shows it is installed. */
interface HostPackage {
  readonly name: string;
  readonly file: string;
  /** Needed to run a real node (not only by tests or the OCI tools). */
  readonly node?: boolean;
}

/** Debian packages the test world needs, with a file that shows each is installed. */
export const HOST_PACKAGES: readonly HostPackage[] = [
  { name: 'memcached', file: '/usr/bin/memcached' },
  { name: 'redis-server', file: '/usr/bin/redis-server' },
  { name: 'redis-tools', file: '/usr/bin/redis-cli' },
  { name: 'openssl', file: '/usr/bin/openssl' },
  // The real node: runtime, pod networking, kube-proxy's iptables, and the root file systems of its images.
  { name: 'runc', node: true, file: '/usr/sbin/runc' },
  { name: 'containernetworking-plugins', node: true, file: '/usr/lib/cni/bridge' },
  { name: 'iptables', node: true, file: '/usr/sbin/iptables' },
  { name: 'conntrack', node: true, file: '/usr/sbin/conntrack' },
  { name: 'mmdebstrap', node: true, file: '/usr/bin/mmdebstrap' },
  // The OCI side of the test world: a registry to push to, and the tools that judge our images.
  { name: 'docker-registry', node: true, file: '/usr/bin/docker-registry' },
  { name: 'skopeo', file: '/usr/bin/skopeo' },
  { name: 'umoci', file: '/usr/bin/umoci' },
  // User-mode emulation, run directly on an unpacked image root: proves an arm64 image runs (no binfmt).
  { name: 'qemu-user-static', file: '/usr/bin/qemu-aarch64-static' },
];

/** Fails early, naming the command that installs them, when packages a real node needs are missing. */
export function assertNodePackagesInstalled(): void {
  const missing = HOST_PACKAGES.filter((p) => p.node && !existsSync(p.file)).map((p) => p.name);
  if (missing.length === 0) return;
  throw new ClusterError(
    'CLUSTER_HOST_PACKAGES_MISSING',
    `a real node needs ${missing.join(', ')}: run 'npx opkit-cluster prepare' as root (or 'apt-get install ${missing.join(' ')}'), or start a kwok-only cluster (realNode: false, or --no-real-node)`,
  );
}

/**
 * Installs the missing host packages with apt-get when running as root (as CI does); otherwise explains
 * which command to run.
 */
export function ensureHostPackages(progress: (line: string) => void): void {
  const missing = HOST_PACKAGES.filter((p) => !existsSync(p.file)).map((p) => p.name);
  if (missing.length === 0) return;
  const command = `apt-get install -y --no-install-recommends ${missing.join(' ')}`;
  if (process.getuid?.() !== 0 || !existsSync('/usr/bin/apt-get')) {
    throw new ClusterError(
      'CLUSTER_HOST_PACKAGES_MISSING',
      `missing host packages: run '${command}' as root`,
    );
  }
  progress(`installing host packages: ${missing.join(', ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [
    ['update', '-qq'],
    ['install', '-y', '-qq', '--no-install-recommends', ...missing],
  ]) {
    const result = spawnSync('apt-get', args, { env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
    if (result.status !== 0) {
      throw new ClusterError(
        'CLUSTER_HOST_PACKAGES_MISSING',
        `'apt-get ${args.join(' ')}' failed: ${result.stderr.trim().split('\n').pop() ?? ''}`,
      );
    }
  }
}
