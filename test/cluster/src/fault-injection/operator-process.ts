import { type ChildProcess, spawn } from 'node:child_process';

/** How to run the operator as its own process, e.g. `node --import tsx src/main.ts --kubeconfig=…`. */
export interface OperatorCommand {
  readonly command: string;
  readonly args: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
}

/** How a test runs an operator from its TypeScript sources. */
export interface SourceOperatorOptions {
  /** The operator's command, e.g. `<project>/src/main.ts`. */
  readonly main: string;
  readonly kubeconfig: string;
  /** More flags of the operator's command. */
  readonly flags?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * The operator's command run from its sources (tsx, workspace packages by their `@opkit/source` condition),
 * without probe and metrics servers (several would contend for their ports) and logging only errors.
 */
export function operatorFromSources(options: SourceOperatorOptions): OperatorCommand {
  return {
    command: process.execPath,
    args: [
      '--conditions=@opkit/source',
      '--import',
      'tsx',
      options.main,
      `--kubeconfig=${options.kubeconfig}`,
      '--metrics-bind-address=0',
      '--health-probe-bind-address=0',
      '--log-level=error',
      ...(options.flags ?? []),
    ],
    ...(options.env ? { env: options.env } : {}),
  };
}

/** The operator under test as a process that can be killed outright (SIGKILL, no cleanup) and started again. */
export class OperatorProcess {
  #child: ChildProcess | undefined;
  #starts = 0;
  readonly #output: string[] = [];

  constructor(readonly command: OperatorCommand) {}

  /** How many times it has been started. */
  get starts(): number {
    return this.#starts;
  }

  /** The last lines it printed, for a failing cell's report. */
  get lastOutput(): string {
    return this.#output.slice(-20).join('');
  }

  start(): void {
    const child = spawn(this.command.command, [...this.command.args], {
      env: { ...process.env, ...this.command.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk: Buffer) => {
      this.#output.push(chunk.toString());
      if (this.#output.length > 200) this.#output.shift();
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.#child = child;
    this.#starts++;
  }

  /** SIGKILL, and wait until it has exited. */
  async kill(): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
  }
}
