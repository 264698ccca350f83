import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';

/** Every child started through this module and not yet exited, so none outlives the test process. */
const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Synchronous last resort on a normal exit; a crash or SIGKILL of this process is covered by the parent-death
  // signal that setpriv arms in each child.
  process.on('exit', () => {
    for (const child of live) child.kill('SIGKILL');
  });
}

let setprivAvailable: boolean | undefined;
/** `setpriv --pdeathsig KILL` makes the kernel kill the child when this process dies, however it dies. */
function hasSetpriv(): boolean {
  setprivAvailable ??= process.platform === 'linux' && spawnSync('setpriv', ['--version']).status === 0;
  return setprivAvailable;
}

/** How long a stopped process's pipes may stay open after its exit: its last output is read meanwhile. */
export const OUTPUT_DRAIN_MS = 1_000;

/** Resolves once `child` has exited, at once when it already has ('exit' is not emitted twice). */
function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export interface ProcessSpec {
  /** Name used in logs and errors. */
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** stdout and stderr are appended here. */
  readonly logFile: string;
}

export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A child process tied to this one's lifetime, with its output in a log file. */
export class ManagedProcess {
  readonly spec: ProcessSpec;
  #child: ChildProcess | undefined;
  #log: WriteStream | undefined;
  #exited: Promise<ProcessExit> = Promise.resolve({ code: null, signal: null });
  #running = false;

  constructor(spec: ProcessSpec) {
    this.spec = spec;
  }

  get pid(): number | undefined {
    return this.#running ? this.#child?.pid : undefined;
  }

  get running(): boolean {
    return this.#running;
  }

  /** Resolves when the current run of the process ends. */
  get exited(): Promise<ProcessExit> {
    return this.#exited;
  }

  /** Starts the process; resolves once it was spawned, rejects when the program cannot be executed. */
  start(): Promise<void> {
    installExitHook();
    const { command, args } = this.spec;
    const [file, argv] = hasSetpriv()
      ? ['setpriv', ['--pdeathsig', 'KILL', '--', command, ...args]]
      : [command, [...args]];
    this.#log ??= createWriteStream(this.spec.logFile, { flags: 'a' });
    const child = spawn(file, argv, {
      cwd: this.spec.cwd,
      env: this.spec.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.#child = child;
    const log = this.#log;
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    live.add(child);
    this.#running = true;
    this.#exited = new Promise((resolve) => {
      child.once('close', (code, signal) => {
        live.delete(child);
        if (this.#child === child) this.#running = false;
        resolve({ code, signal });
      });
    });
    return new Promise((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.once('error', (error) => {
        live.delete(child);
        this.#running = false;
        reject(error);
      });
    });
  }

  /** Sends a signal without waiting (used by tests to simulate crashes). */
  signal(signal: NodeJS.Signals): void {
    if (this.#running) this.#child?.kill(signal);
  }

  /**
   * SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone and its output is in the log. A
   * descendant that inherited its stdout or stderr and outlives it would hold them open for ever: they are
   * let go {@link OUTPUT_DRAIN_MS} after the exit.
   */
  async stop(graceMs = 5000): Promise<void> {
    if (!this.#running || !this.#child) return;
    const child = this.#child;
    child.kill('SIGTERM');
    const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exitOf(child);
    clearTimeout(kill);
    const letGo = setTimeout(() => {
      child.stdout?.destroy();
      child.stderr?.destroy();
    }, OUTPUT_DRAIN_MS);
    await this.#exited;
    clearTimeout(letGo);
  }

  /** Closes the log file once the process is stopped for good. */
  async close(): Promise<void> {
    await this.stop();
    const log = this.#log;
    this.#log = undefined;
    if (log) await new Promise((resolve) => log.end(resolve));
  }
}

/**
 * A detached watcher that removes `dir` once process `pid` is gone. It covers the one thing the parent-death
 * signal cannot: deleting the cluster's temp dir when the test runner is killed outright.
 */
export function spawnDirectoryReaper(pid: number, dir: string): { cancel(): void } {
  const script = 'while kill -0 "$0" 2>/dev/null; do sleep 1; done; rm -rf "$1"';
  const child = spawn('sh', ['-c', script, String(pid), dir], { detached: true, stdio: 'ignore' });
  child.unref();
  return {
    cancel: () => {
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
    },
  };
}
