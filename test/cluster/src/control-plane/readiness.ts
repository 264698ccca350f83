import { readFileSync } from 'node:fs';
import { get } from 'node:https';
import { ComponentStartError } from '../errors.js';
import type { ManagedProcess } from '../process/managed-process.js';

export function lastLines(file: string, count = 3): string {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').slice(-count).join(' | ');
  } catch {
    return '(no log)';
  }
}

/**
 * Polls `check` until it passes; fails fast when the process exits, and after `timeoutMs` with the log's tail.
 */
export async function waitUntilReady(
  process: ManagedProcess,
  check: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void process.exited.then(() => {
    exited = true;
  });
  while (Date.now() < deadline) {
    if (exited || !process.running) {
      throw new ComponentStartError(
        process.spec.name,
        process.spec.logFile,
        `exited: ${lastLines(process.spec.logFile)}`,
      );
    }
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new ComponentStartError(
    process.spec.name,
    process.spec.logFile,
    `not ready after ${Math.round(timeoutMs / 1000)}s: ${lastLines(process.spec.logFile)}`,
  );
}

/** GET over HTTPS without verifying the (self-signed) serving certificate: for /healthz of KCM and scheduler. */
export function httpsHealthy(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = get(url, { rejectUnauthorized: false, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => {
      req.destroy();
      resolve(false);
    });
  });
}

export async function httpHealthy(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    return res.ok;
  } catch {
    return false;
  }
}
