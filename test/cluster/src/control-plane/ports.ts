import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { PortInUseError } from '../errors.js';

/** Ports this process already handed out: clusters started side by side must not be given the same one. */
const handedOut = new Set<number>();

/**
 * Where listening ports are picked: below the kernel's range for the local ports of outgoing connections
 * (`ip_local_port_range`), and below Kubernetes' NodePort range (30000–32767). A port from the kernel's own
 * range, free when probed, can become the local end of any outgoing connection before the server binds it
 * again — an operator restarted between two tests then finds its webhook port taken (EADDRINUSE).
 */
const LISTEN_RANGE = { low: 10_000, high: 29_999 } as const;

/** The kernel's range for outgoing connections' local ports; Linux's default where it cannot be read. */
function readEphemeralRange(): { low: number; high: number } {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number);
    if (Number.isInteger(low) && Number.isInteger(high)) return { low: low as number, high: high as number };
  } catch {
    // not Linux, or no /proc: assume the default
  }
  return { low: 32_768, high: 60_999 };
}

let ephemeral: { low: number; high: number } | undefined;

/** Whether nothing listens on `port` of 127.0.0.1 right now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

function kernelPickedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/**
 * A port on 127.0.0.1 that was free a moment ago and that this process has not handed out before (between
 * the probe and the component's own bind the kernel may offer the same port again), outside the range the
 * kernel gives outgoing connections (see {@link LISTEN_RANGE}). Where that range leaves no room, the kernel
 * picks.
 */
export async function freePort(): Promise<number> {
  ephemeral ??= readEphemeralRange();
  const high = Math.min(LISTEN_RANGE.high, ephemeral.low - 1);
  if (high >= LISTEN_RANGE.low) {
    for (let attempt = 0; attempt < 1_000; attempt++) {
      const port = LISTEN_RANGE.low + Math.floor(Math.random() * (high - LISTEN_RANGE.low + 1));
      if (handedOut.has(port) || !(await canListen(port))) continue;
      handedOut.add(port);
      return port;
    }
  }
  for (;;) {
    const port = await kernelPickedPort();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}

/** Checks that a port the caller chose is free, with an error that says what to do if it is not. */
export function assertPortFree(port: number, purpose: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new PortInUseError(port, purpose) : error),
    );
    server.listen(port, '127.0.0.1', () => server.close(() => resolve()));
  });
}
