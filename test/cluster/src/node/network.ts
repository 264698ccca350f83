import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { ClusterError } from '../errors.js';
import { NODE_NETWORK } from './addresses.js';

/** The node's own FORWARD chain: traffic may cross the bridge between pods, never leave or enter it. */
const ISOLATION_CHAIN = 'OPKIT-NODE-FORWARD';

function run(command: string, args: readonly string[]): void {
  try {
    execFileSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    throw new ClusterError(
      'CLUSTER_NODE_NETWORK_FAILED',
      `setting up the node network: '${command} ${args.join(' ')}' failed: ${stderr || (error as Error).message}`,
    );
  }
}

/**
 * Creates the node's bridge with the node IP, routes the service range onto it, turns on forwarding (a pod
 * reaching a ClusterIP is DNATed to another pod and forwarded back onto the bridge) and fences the bridge
 * off from every other interface. All of it is undone by the host claim's cleanup.
 */
export function setUpNodeNetwork(): void {
  const { bridge, nodeIP, podCidr, serviceCidr } = NODE_NETWORK;
  const prefix = podCidr.split('/')[1];
  run('ip', ['link', 'add', bridge, 'type', 'bridge']);
  run('ip', ['addr', 'add', `${nodeIP}/${prefix}`, 'dev', bridge]);
  run('ip', ['link', 'set', bridge, 'up']);
  run('ip', ['route', 'add', serviceCidr, 'dev', bridge, 'src', nodeIP]);
  run('iptables', ['-w', '-N', ISOLATION_CHAIN]);
  run('iptables', ['-w', '-A', ISOLATION_CHAIN, '-i', bridge, '-o', bridge, '-j', 'ACCEPT']);
  run('iptables', ['-w', '-A', ISOLATION_CHAIN, '-i', bridge, '-j', 'DROP']);
  run('iptables', ['-w', '-A', ISOLATION_CHAIN, '-o', bridge, '-j', 'DROP']);
  run('iptables', ['-w', '-I', 'FORWARD', '1', '-j', ISOLATION_CHAIN]);
  writeFileSync('/proc/sys/net/ipv4/ip_forward', '1');
}

/**
 * Puts the isolation chain back at the head of FORWARD: kube-proxy prepends its own chains when it starts,
 * and one of them accepts established connections before the fence would see them.
 */
export function keepFenceFirst(): void {
  run('iptables', ['-w', '-D', 'FORWARD', '-j', ISOLATION_CHAIN]);
  run('iptables', ['-w', '-I', 'FORWARD', '1', '-j', ISOLATION_CHAIN]);
}
