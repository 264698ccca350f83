import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { OPERATOR_NODE_OPTIONS } from '@opkit/controller-runtime/manager';
import { freePort } from '@opkit/test-cluster';
import { build } from 'esbuild';
import { type FleetApi, GUIDE_API, OPKIT_API } from './fleet.js';
import { type RequestCounts, requestCountsByMethod, requestTotals } from './prometheus-text.js';
import { withoutServerSideApply } from './without-apply.js';

/**
 * The operators the benchmark compares: ours, the guide's controller, (`--same-objects`) the guide's
 * controller keeping the same Service, PodDisruptionBudget and spread as ours, and (`--also-without-apply`)
 * ours writing without server-side apply.
 */
export type OperatorName = 'opkit' | 'opkit-without-apply' | 'baseline' | 'baseline-same-objects';

/** How to start one operator: its command, and how it takes the image of the memcached pods. */
export interface OperatorCommand {
  readonly name: OperatorName;
  readonly executable: string;
  readonly args: readonly string[];
  /** Environment variable the operator reads the memcached image from. */
  readonly imageVariable: string;
  /** The API version its users write Memcacheds in. */
  readonly api: FleetApi;
}

/** The Memcached operator's project, found through its package as npm linked it into the workspace. */
const memcachedOperatorDir = dirname(
  createRequire(import.meta.url).resolve('@opkit/memcached-operator/package.json'),
);

/**
 * Our operator in the form it would ship: one esbuild bundle of `operators/memcached/src/main.ts` run by
 * plain Node with the image's node flags (or those given), so neither tsx nor TypeScript compilation is part of its CPU time or memory.
 */
export async function bundleOpkitOperator(
  outDir: string,
  nodeOptions: readonly string[] = OPERATOR_NODE_OPTIONS,
  { withoutApply = false } = {},
): Promise<OperatorCommand> {
  const name = withoutApply ? 'opkit-without-apply' : 'opkit';
  const outfile = join(outDir, `${name}.mjs`);
  const result = await build({
    entryPoints: [join(memcachedOperatorDir, 'src', 'main.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    conditions: ['@opkit/source'],
    outfile,
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
    write: false,
    logLevel: 'error',
    plugins: withoutApply ? [withoutServerSideApply()] : [],
  });
  // As `opkit image build` writes it: ASCII, the non-ASCII characters of the comments esbuild keeps escaped,
  // so Node holds the source at one byte a character.
  const [output] = result.outputFiles;
  if (output === undefined) throw new Error('esbuild wrote no output');
  await writeFile(
    outfile,
    output.text.replace(/[^\p{ASCII}]/gu, (c) => `\\u{${(c.codePointAt(0) ?? 0).toString(16)}}`),
  );
  return {
    name,
    executable: process.execPath,
    // The flags the operator image's entrypoint gives node, unless the run tries others.
    args: [...nodeOptions, outfile],
    imageVariable: 'RELATED_IMAGE_MEMCACHED',
    api: OPKIT_API,
  };
}

export function baselineOperator(binary: string, { sameObjects = false } = {}): OperatorCommand {
  return {
    name: sameObjects ? 'baseline-same-objects' : 'baseline',
    executable: binary,
    // Our objects, and our status's observedGeneration: it counts as done once it reports the current spec.
    args: sameObjects ? ['--own-service-and-pdb', '--observed-generation'] : [],
    imageVariable: 'MEMCACHED_IMAGE',
    api: GUIDE_API,
  };
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

let setprivAvailable: boolean | undefined;
/** `setpriv --pdeathsig KILL` has the kernel kill the operator if the benchmark dies, however it dies. */
function withParentDeathSignal(executable: string, args: readonly string[]): [string, string[]] {
  setprivAvailable ??= process.platform === 'linux' && spawnSync('setpriv', ['--version']).status === 0;
  return setprivAvailable
    ? ['setpriv', ['--pdeathsig', 'KILL', '--', executable, ...args]]
    : [executable, [...args]];
}

/** A started operator process with its metrics endpoint. */
export class OperatorProcess {
  readonly #child: ChildProcess;
  readonly metricsUrl: string;
  /** The readiness probe: 200 once the manager's caches have synced. */
  readonly readyzUrl: string;
  #exited: Promise<number | null>;
  #exitCode: number | null | undefined;

  private constructor(child: ChildProcess, metricsUrl: string, readyzUrl: string) {
    this.#child = child;
    this.metricsUrl = metricsUrl;
    this.readyzUrl = readyzUrl;
    this.#exited = new Promise((resolve) => {
      child.once('exit', (code) => {
        running.delete(child);
        this.#exitCode = code;
        resolve(code);
      });
    });
  }

  get pid(): number {
    return this.#child.pid!;
  }

  /**
   * Starts the operator against `kubeconfigPath`, watching `namespaces` only, and waits until its metrics
   * endpoint answers. Both operators get plain-HTTP metrics on loopback, leader election off, and logs at
   * error level (written to `logFile`).
   */
  static async start(
    command: OperatorCommand,
    options: {
      kubeconfigPath: string;
      namespaces: readonly string[];
      image: string;
      logFile: string;
      /** More environment for the operator's process. */
      env?: NodeJS.ProcessEnv;
    },
  ): Promise<OperatorProcess> {
    const metricsPort = await freePort();
    const probePort = await freePort();
    const flags = command.name.startsWith('opkit')
      ? ['--kubeconfig', options.kubeconfigPath, '--log-level', 'error', '--metrics-secure=false']
      : [`--kubeconfig=${options.kubeconfigPath}`, '--zap-log-level=error'];
    const log = createWriteStream(options.logFile, { flags: 'a' });
    const [executable, args] = withParentDeathSignal(command.executable, [
      ...command.args,
      `--metrics-bind-address=127.0.0.1:${metricsPort}`,
      `--health-probe-bind-address=127.0.0.1:${probePort}`,
      ...flags,
    ]);
    const child = spawn(executable, args, {
      env: {
        ...process.env,
        KUBECONFIG: options.kubeconfigPath,
        WATCH_NAMESPACE: options.namespaces.join(','),
        POD_NAMESPACE: options.namespaces[0],
        // The benchmark's CRD has no conversion: both runs create Memcacheds in their own operator's version.
        ENABLE_WEBHOOKS: 'false',
        [command.imageVariable]: options.image,
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.add(child);
    child.stdout!.pipe(log, { end: false });
    child.stderr!.pipe(log, { end: false });
    const operator = new OperatorProcess(
      child,
      `http://127.0.0.1:${metricsPort}/metrics`,
      `http://127.0.0.1:${probePort}/readyz`,
    );
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (operator.#exitCode !== undefined) {
        throw new Error(
          `${command.name} operator exited with ${operator.#exitCode} at start-up; see ${options.logFile}`,
        );
      }
      try {
        await operator.requestCounts();
        return operator;
      } catch (error) {
        if (Date.now() > deadline) {
          await operator.stop();
          throw new Error(
            `${command.name} operator served no metrics within 60 s (${String(error)}); see ${options.logFile}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }

  /** The operator's API requests so far, by verb. */
  async requestCounts(): Promise<RequestCounts> {
    const response = await fetch(this.metricsUrl, { signal: AbortSignal.timeout(10_000) });
    if (!response.ok) throw new Error(`GET ${this.metricsUrl}: ${response.status}`);
    return requestCountsByMethod(await response.text());
  }

  /** The operator's writes so far (POST, PUT, PATCH, DELETE), a counter. */
  async writeCount(): Promise<number> {
    return requestTotals(await this.requestCounts()).writes;
  }

  /** SIGTERM, then SIGKILL after 10 s. */
  async stop(): Promise<void> {
    if (this.#exitCode !== undefined) return;
    this.#child.kill('SIGTERM');
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), 10_000);
    await this.#exited;
    clearTimeout(timer);
  }

  get exited(): boolean {
    return this.#exitCode !== undefined;
  }
}
