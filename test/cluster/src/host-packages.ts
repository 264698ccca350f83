import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { ClusterError } from './errors.js';

/** Debian packages the test world runs as real processes, with a file that shows each is installed. */
export const HOST_PACKAGES: readonly { readonly name: string; readonly file: string }[] = [
  { name: 'memcached', file: '/usr/bin/memcached' },
  { name: 'redis-server', file: '/usr/bin/redis-server' },
  { name: 'redis-tools', file: '/usr/bin/redis-cli' },
  { name: 'openssl', file: '/usr/bin/openssl' },
  // The real node: runtime, pod networking, kube-proxy's iptables, and the root file systems of its images.
  { name: 'runc', file: '/usr/sbin/runc' },
  { name: 'containernetworking-plugins', file: '/usr/lib/cni/bridge' },
  { name: 'iptables', file: '/usr/sbin/iptables' },
  { name: 'conntrack', file: '/usr/sbin/conntrack' },
  { name: 'mmdebstrap', file: '/usr/bin/mmdebstrap' },
  // The OCI side of the test world: a registry to push to, and the tools that judge our images.
  { name: 'docker-registry', file: '/usr/bin/docker-registry' },
  { name: 'skopeo', file: '/usr/bin/skopeo' },
  { name: 'umoci', file: '/usr/bin/umoci' },
];

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
