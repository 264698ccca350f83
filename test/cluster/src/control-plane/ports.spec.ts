import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort } from './ports.js';

/** The kernel's range for outgoing connections' local ports, as this machine sets it. */
function ephemeral(): [number, number] {
  const text = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8');
  return text.trim().split(/\s+/).map(Number) as [number, number];
}

const listen = (port: number) =>
  new Promise<void>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => server.close(() => resolve()));
  });

describe('freePort', () => {
  it('hands out distinct listenable ports that no outgoing connection and no NodePort can take', async () => {
    const [low, high] = ephemeral();
    const ports: number[] = [];
    for (let i = 0; i < 50; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports) {
      expect(port < low || port > high, `${port} in ${low}–${high}`).toBe(true);
      expect(port < 30_000 || port > 32_767, `${port} is a NodePort`).toBe(true);
      await listen(port);
    }
  });
});
