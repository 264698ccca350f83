import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const leaseDir = () => join(tmpdir(), 'opkit-pod-subnets');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Pod IPs from a loopback /16 (127.N.0.0/16). Linux routes all of 127.0.0.0/8 to the loopback device, so a
 * process can bind any of these addresses and a client reaches the pod at its IP as in a real cluster. Each
 * cluster leases its own N (a file holding its pid), so two clusters on one machine never share addresses.
 */
export class PodIpPool {
  readonly subnet: number;
  readonly #inUse = new Set<string>();
  #next = 2;

  private constructor(subnet: number) {
    this.subnet = subnet;
  }

  static lease(): PodIpPool {
    mkdirSync(leaseDir(), { recursive: true });
    const start = 1 + Math.floor(Math.random() * 250);
    for (let i = 0; i < 250; i++) {
      const subnet = 1 + ((start + i) % 250);
      const file = join(leaseDir(), String(subnet));
      try {
        writeFileSync(file, String(process.pid), { flag: 'wx' });
        return new PodIpPool(subnet);
      } catch {
        const owner = Number(readFileSync(file, 'utf8'));
        if (!alive(owner)) {
          rmSync(file, { force: true });
          try {
            writeFileSync(file, String(process.pid), { flag: 'wx' });
            return new PodIpPool(subnet);
          } catch {
            // someone else took it meanwhile
          }
        }
      }
    }
    throw new Error('no free loopback /16 for pod IPs (all of 127.1-250.0.0 are leased)');
  }

  /** The node address of this cluster's fake nodes. */
  get hostIP(): string {
    return `127.${this.subnet}.0.1`;
  }

  allocate(): string {
    for (let tries = 0; tries < 65_000; tries++) {
      const n = this.#next;
      this.#next = n >= 65_000 ? 2 : n + 1;
      const ip = `127.${this.subnet}.${n >> 8}.${n & 255}`;
      if ((n & 255) === 0 || (n & 255) === 255 || this.#inUse.has(ip)) continue;
      this.#inUse.add(ip);
      return ip;
    }
    throw new Error('pod IP range exhausted');
  }

  release(ip: string): void {
    this.#inUse.delete(ip);
  }

  /** Marks an address taken (pods that already had an IP when the kubelet started). */
  claim(ip: string): void {
    this.#inUse.add(ip);
  }

  close(): void {
    rmSync(join(leaseDir(), String(this.subnet)), { force: true });
  }
}
