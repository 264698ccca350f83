import { createServer } from 'node:net';
import { PortInUseError } from '../errors.js';

/** Ports this process already handed out: clusters started side by side must not be given the same one. */
const handedOut = new Set<number>();

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
 * A port on 127.0.0.1 that was free a moment ago (the kernel picks it) and that this process has not handed
 * out before: between the probe and the component's own bind the kernel may offer the same port again.
 */
export async function freePort(): Promise<number> {
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
