import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { cleanupScript, type HostClaim } from './host-claim.js';

const claim: HostClaim = {
  pid: 4242,
  clusterDir: "/tmp/opkit-cluster-it's",
  executables: ['/cache/bin/kubelet', '/cache/bin/containerd-shim-runc-v2'],
  sysctls: { 'net/ipv4/ip_forward': '0', 'kernel/panic': '0' },
  createdPaths: ['/var/lib/kubelet'],
};

describe('the node cleanup script', () => {
  const script = cleanupScript(claim);

  it('is valid POSIX shell, with every path quoted', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cleanup-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'cleanup.sh');
    writeFileSync(file, script);
    expect(() => execFileSync('sh', ['-n', file])).not.toThrow();
    expect(script).toContain(`rm -rf '/tmp/opkit-cluster-it'\\''s'`);
  });

  it('puts back the kernel settings it found and removes only the host paths the node created', () => {
    expect(script).toContain("echo '0' > /proc/sys/net/ipv4/ip_forward");
    expect(script).toContain("echo '0' > /proc/sys/kernel/panic");
    expect(script).toContain("rm -rf '/var/lib/kubelet'");
    expect(script).not.toContain("rm -rf '/run/containerd'");
  });

  it('kills the node’s own programs by executable, and removes its bridge and iptables chains', () => {
    expect(script).toContain("exes='/cache/bin/kubelet /cache/bin/containerd-shim-runc-v2'");
    expect(script).toContain('ip link delete opkit0');
    expect(script).toMatch(/grep -vE "KUBE-\|CNI-\|OPKIT-"/);
  });
});
