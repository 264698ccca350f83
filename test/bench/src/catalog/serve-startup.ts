// Serve start-up: from spawning a catalog server until its gRPC health check answers SERVING.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { waitForServing } from '@opkit/olm/registry';
import { procStatusKib } from '../converge/process-usage.js';

/** A free loopback port (released before the server binds it). */
export async function freePort(): Promise<number> {
  return await new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

/** A server's start-up, and its resident set once serving. */
export interface ServeStartup {
  readonly ms: number;
  /** Resident set in KiB a moment after the health check answered; `undefined` where /proc cannot tell. */
  readonly servingRssKib: number | undefined;
}

/** How long after SERVING the resident set is read: what start-up left behind, after it settled. */
const SETTLE_MS = 300;

/**
 * Spawns `command args…` (which must serve on `port`) and returns the milliseconds until
 * `grpc.health.v1.Health/Check` on 127.0.0.1:`port` answered SERVING, and its resident set a moment later;
 * the server is stopped afterwards.
 */
export async function timeServeStartup(
  command: string,
  args: readonly string[],
  port: number,
): Promise<ServeStartup> {
  const started = performance.now();
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  try {
    const exited = once(child, 'exit').then(() => {
      throw new Error(`${command} ${args.join(' ')} exited before serving:\n${stderr.slice(-2000)}`);
    });
    await Promise.race([waitForServing(`127.0.0.1:${port}`, 300_000, 10), exited]);
    const ms = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const servingRssKib = child.pid === undefined ? undefined : procStatusKib(child.pid, 'VmRSS');
    return { ms, servingRssKib };
  } finally {
    await stop(child);
  }
}
