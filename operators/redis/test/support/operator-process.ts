import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { inject } from 'vitest';
import { REDIS_IMAGE } from './operator.js';

const root = join(import.meta.dirname, '..', '..');

/** The operator as its own process, from its command (`src/main.ts`), as a Deployment would run it. */
export interface OperatorProcess {
  readonly child: ChildProcess;
  /** Its log lines (JSON), as printed. */
  readonly lines: string[];
  /** Resolves with the exit signal or code. */
  readonly exited: Promise<string>;
}

export function startOperatorProcess(namespace: string): OperatorProcess {
  const child = spawn(
    process.execPath,
    [
      '--conditions=@opkit/source',
      '--import',
      'tsx',
      join(root, 'src', 'main.ts'),
      '--kubeconfig',
      inject('opkitKubeconfig'),
      '--metrics-bind-address',
      '127.0.0.1:0',
      '--metrics-secure=false',
      '--health-probe-bind-address',
      '127.0.0.1:0',
    ],
    {
      cwd: root,
      env: {
        ...process.env,
        WATCH_NAMESPACE: namespace,
        POD_NAMESPACE: namespace,
        RELATED_IMAGE_REDIS: REDIS_IMAGE,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const lines: string[] = [];
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on('line', (line) => {
      lines.push(line);
      if (process.env.OPKIT_TEST_VERBOSE) process.stderr.write(`[operator ${child.pid}] ${line}\n`);
    });
  }
  const exited = new Promise<string>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ?? String(code))),
  );
  return { child, lines, exited };
}
