// Runs a guide's commands one after the other against the test cluster, as a reader types them, so the guide
// is what is tested: only the steps that create the cluster are left to the suite's own cluster.
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { type GuideCommand, guideCommands } from './guide-commands.js';

/** What one command did. */
export interface CommandRun {
  readonly command: GuideCommand;
  /** `ran`: to its end; `background`: started and left running; `standIn`: the suite's cluster stands in. */
  readonly how: 'ran' | 'background' | 'standIn';
  readonly stdout: string;
  readonly stderr: string;
}

export interface WalkthroughOptions {
  /** The Markdown file and the heading whose shell blocks are the walk-through. */
  readonly file: string;
  readonly section: string;
  /** Working directory of every command (the repository root, where the guide's paths start). */
  readonly cwd: string;
  /** Kubeconfig of the test cluster: `KUBECONFIG` of every command, and the guide's `<printed path>`. */
  readonly kubeconfig: string;
  /** Commands that start a cluster: not run, the suite's cluster stands in. @default `nx run cluster:up` */
  readonly standIn?: RegExp;
  /**
   * Commands that run until stopped (an operator): started, left running, stopped at the end (SIGTERM to their
   * process group; the walk-through returns once they and what they started have exited).
   */
  readonly background?: RegExp;
  /** Longest a command may take. @default 10 minutes */
  readonly timeoutMs?: number;
}

const EXPORT = /^export\s+([A-Za-z_]\w*)=(.*)$/;

/**
 * Runs the walk-through of `options.file`'s `options.section`, command for command; a command that fails stops
 * it with an error naming the file, line, command and its output. Background processes are stopped, and have
 * exited, before it returns, also on failure.
 */
export async function runWalkthrough(options: WalkthroughOptions): Promise<CommandRun[]> {
  const commands = guideCommands(readFileSync(options.file, 'utf8'), options.section, options.file);
  const standIn = options.standIn ?? /\bnx run cluster:up\b/;
  const env: NodeJS.ProcessEnv = { ...process.env, KUBECONFIG: options.kubeconfig, NX_DAEMON: 'false' };
  const placeholders = new Map([['<printed path>', options.kubeconfig]]);
  const started: ChildProcess[] = [];
  const runs: CommandRun[] = [];
  try {
    for (const command of commands) {
      const text = [...placeholders].reduce((t, [p, v]) => t.replaceAll(p, v), command.text);
      if (standIn.test(text)) {
        runs.push({ command, how: 'standIn', stdout: '', stderr: '' });
        continue;
      }
      // The shell of each command is a new one: carry what the guide exports into the next ones.
      const exported = EXPORT.exec(text);
      if (exported?.[1]) env[exported[1]] = exported[2]?.replace(/^(['"])(.*)\1$/, '$2') ?? '';
      if (options.background?.test(text)) {
        started.push(spawn('sh', ['-c', text], { cwd: options.cwd, env, stdio: 'ignore', detached: true }));
        runs.push({ command, how: 'background', stdout: '', stderr: '' });
        continue;
      }
      const result = await run(text, options.cwd, env, options.timeoutMs ?? 600_000);
      if (result.code !== 0) {
        throw new Error(
          `${options.file}:${command.line}: \`${command.text}\` exited with ${result.code}\n` +
            `${result.stdout}${result.stderr}`,
        );
      }
      runs.push({ command, how: 'ran', stdout: result.stdout, stderr: result.stderr });
    }
  } finally {
    await Promise.all(started.map(stop));
  }
  return runs;
}

/** The output of the first command run that contains `fragment`; throws when the guide has none. */
export function outputOf(runs: readonly CommandRun[], fragment: string): string {
  const found = runs.find((r) => r.how === 'ran' && r.command.text.includes(fragment));
  if (!found) throw new Error(`the walk-through runs no command with "${fragment}"`);
  return found.stdout + found.stderr;
}

function run(
  text: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', text], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: timeoutMs,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr }));
  });
}

/** A process's state and parent from `/proc/<pid>/stat`; undefined once it is gone. */
function procStat(pid: number): { state: string; ppid: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command name, which may hold spaces and parentheses: state, ppid, ...
    const [state = '', ppid = ''] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state, ppid: Number(ppid) };
  } catch {
    return undefined;
  }
}

/** A process that has not exited (a zombie has: only its parent has yet to reap it). */
function running(pid: number): boolean {
  const state = procStat(pid)?.state;
  return state !== undefined && state !== 'Z' && state !== 'X';
}

/** The processes `pid` started and theirs, wherever they are (`nx` runs a command in a session of its own). */
function descendants(pid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  for (const entry of entries) {
    const stat = /^\d+$/.test(entry) ? procStat(Number(entry)) : undefined;
    if (stat) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  for (let queue = [pid]; queue.length > 0; ) {
    const next = children.get(queue.shift() as number) ?? [];
    found.push(...next);
    queue.push(...next);
  }
  return found;
}

async function exited(pids: readonly number[], timeoutMs: number): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; ) {
    if (!pids.some(running)) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return !pids.some(running);
}

/**
 * Stops a background command: SIGTERM to its process group, then waits until it and everything it started
 * have exited, so that nothing it runs (an operator, say) still acts on the cluster once the walk-through has
 * returned; what is still running after 30 s gets SIGKILL.
 */
async function stop(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null) return;
  const pids = [child.pid, ...descendants(child.pid)];
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    // Already gone.
  }
  if (await exited(pids, 30_000)) return;
  for (const pid of pids.filter(running)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
  await exited(pids, 5_000);
}
