import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, InvalidArgumentError } from 'commander';
import { MAX_CONTROL_PLANE_QPS, startCluster } from './cluster.js';
import { assertPortFree } from './control-plane/ports.js';
import { ClusterError } from './errors.js';
import { ensureHostPackages } from './host-packages.js';
import { ensureClusterImages } from './images/cluster-images.js';
import { type ClusterState, readyLines } from './ready-message.js';
import { ensureComponents } from './toolchain/build.js';
import { cacheRoot } from './toolchain/cache.js';
import { testWorldRecipes } from './toolchain/recipes.js';
import { invokingUser, kubeconfigForUser } from './user-kubeconfig.js';

const stateDir = () => join(cacheRoot(), 'clusters');
const stateFile = (name: string) => join(stateDir(), `${name}.json`);
const logFile = (name: string) => join(stateDir(), `${name}.log`);
const say = (line: string) => process.stdout.write(`${line}\n`);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function readState(name: string): ClusterState | undefined {
  if (!existsSync(stateFile(name))) return undefined;
  return JSON.parse(readFileSync(stateFile(name), 'utf8')) as ClusterState;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new InvalidArgumentError('must be a port number (1-65535)');
  return port;
}

function parseKwokCount(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 100) throw new InvalidArgumentError('must be a whole number from 0 to 100');
  return n;
}

function parseQps(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > MAX_CONTROL_PLANE_QPS)
    throw new InvalidArgumentError(
      `must be a whole number of requests per second from 1 to ${MAX_CONTROL_PLANE_QPS}`,
    );
  return n;
}

interface UpOptions {
  readonly name: string;
  readonly port?: number;
  readonly nodes?: number;
  readonly controlPlaneQps?: number;
  readonly realNode: boolean;
  readonly olm: boolean;
  readonly prometheus: boolean;
}

const program = new Command('opkit-cluster')
  .description(
    'A throwaway Kubernetes cluster built from source: control plane, a real node (kubelet, containerd, kube-proxy, CoreDNS) and kwok nodes for scale.',
  )
  .showHelpAfterError();

program
  .command('prepare')
  .description(
    'Install the host packages (as root), build + cache every component from its Go module and the node images from Debian packages.',
  )
  .action(async () => {
    const started = Date.now();
    ensureHostPackages(say);
    const built = await ensureComponents(testWorldRecipes, { onProgress: say });
    for (const c of Object.values(built)) {
      say(
        `${c.name} v${c.version}: ${c.buildSeconds > 0 ? `built in ${c.buildSeconds}s` : 'cached'} (${c.dir})`,
      );
    }
    const pause = built.pause;
    if (!pause) throw new ClusterError('CLUSTER_BUILD_FAILED', 'the pause program was not built');
    for (const image of await ensureClusterImages({
      pauseBinary: join(pause.dir, 'pause'),
      onProgress: say,
    })) {
      const platforms = image.platforms.map((p) => `linux/${p.architecture}`).join(', ');
      say(`image ${image.references.join(', ')} (${platforms}): ${image.layout}`);
    }
    say(`ready in ${((Date.now() - started) / 1000).toFixed(1)}s`);
  });

program
  .command('up')
  .description(
    'Start a cluster in the background; print its kubeconfig path and, with a real node, its registry and the Node base image for operators.',
  )
  .option('--name <name>', 'cluster name, to run several at once', 'default')
  .option('--port <port>', 'kube-apiserver port (default: a free one)', parsePort)
  .option('--nodes <count>', 'number of kwok nodes (default: 0 with a real node, 3 without)', parseKwokCount)
  .option(
    '--no-real-node',
    'no kubelet/containerd node: a kwok-only cluster (no root needed, several per machine)',
  )
  .option('--olm', 'also run OLM (its CRDs, the olm and catalog operators)', false)
  .option(
    '--prometheus',
    'also run the Prometheus Operator and one Prometheus in namespace monitoring (needs the real node)',
    false,
  )
  .option(
    '--control-plane-qps <n>',
    "the controller-manager's and the scheduler's API rate (burst twice it; default: their own, 20 and 50)",
    parseQps,
  )
  .addHelpText(
    'after',
    `
Examples:
  $ opkit-cluster up                       # a real node; prints the kubeconfig, registry, base image
  $ opkit-cluster up --olm                 # with OLM
  $ opkit-cluster up --prometheus          # with the Prometheus Operator and Prometheus (monitoring/prometheus:9090)
  $ opkit-cluster up --name scale --no-real-node --nodes 5
  $ opkit-cluster up --name scale --no-real-node --control-plane-qps 500   # controllers not rate-bound
  $ opkit-cluster down --name scale`,
  )
  .action(async (opts: UpOptions) => {
    const existing = readState(opts.name);
    if (existing && alive(existing.pid)) {
      throw new ClusterError(
        'CLUSTER_ALREADY_RUNNING',
        `cluster '${opts.name}' is already running (kubeconfig ${existing.kubeconfig}): run 'npx opkit-cluster down${opts.name === 'default' ? '' : ` --name ${opts.name}`}' first or pick another --name`,
      );
    }
    ensureHostPackages(say);
    if (opts.port) await assertPortFree(opts.port, 'kube-apiserver');
    mkdirSync(stateDir(), { recursive: true });
    rmSync(stateFile(opts.name), { force: true });
    writeFileSync(logFile(opts.name), '');
    const out = openSync(logFile(opts.name), 'a');
    const self = fileURLToPath(new URL('../bin/opkit-cluster.js', import.meta.url));
    const args = [self, 'serve', '--name', opts.name];
    if (opts.nodes !== undefined) args.push('--nodes', String(opts.nodes));
    if (!opts.realNode) args.push('--no-real-node');
    if (opts.port) args.push('--port', String(opts.port));
    if (opts.olm) args.push('--olm');
    if (opts.prometheus) args.push('--prometheus');
    if (opts.controlPlaneQps !== undefined) args.push('--control-plane-qps', String(opts.controlPlaneQps));
    const child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', out, out] });
    child.unref();
    let shown = 0;
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const lines = readFileSync(logFile(opts.name), 'utf8').split('\n');
      for (; shown < lines.length - 1; shown++) say(lines[shown]!);
      const state = readState(opts.name);
      if (state) {
        for (const line of readyLines(state)) say(line);
        return;
      }
      if (!alive(child.pid!)) {
        const reason = lines
          .findLast((l) => l.startsWith('opkit-cluster: '))
          ?.slice('opkit-cluster: '.length);
        throw new ClusterError(
          'CLUSTER_START_FAILED',
          reason ?? `the cluster did not start (log: ${logFile(opts.name)})`,
        );
      }
    }
  });

program
  .command('serve', { hidden: true })
  .description('Run a control plane in the foreground until SIGTERM (used by `up`).')
  .option('--name <name>', 'cluster name', 'default')
  .option('--port <port>', 'kube-apiserver port', parsePort)
  .option('--nodes <count>', 'number of kwok nodes', parseKwokCount)
  .option('--no-real-node', 'a kwok-only cluster')
  .option('--olm', 'also run OLM', false)
  .option('--prometheus', 'also run the Prometheus Operator and Prometheus', false)
  .option('--control-plane-qps <n>', 'controller-manager and scheduler API rate', parseQps)
  .action(async (opts: UpOptions) => {
    const cluster = await startCluster({
      apiServerPort: opts.port,
      nodes: opts.nodes,
      realNode: opts.realNode,
      olm: opts.olm,
      prometheus: opts.prometheus,
      controlPlaneQps: opts.controlPlaneQps,
      onProgress: say,
    });
    // Under sudo, the user who typed it gets a kubeconfig of theirs: the one printed, for the later steps.
    const user = invokingUser(process.env);
    let forUser: ReturnType<typeof kubeconfigForUser> | undefined;
    try {
      forUser = user === undefined ? undefined : kubeconfigForUser(cluster.kubeconfigPath, user);
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    const state: ClusterState = {
      name: opts.name,
      pid: process.pid,
      kubeconfig: forUser?.path ?? cluster.kubeconfigPath,
      ...(forUser === undefined ? {} : { userKubeconfigDir: forUser.dir }),
      dir: cluster.dir,
      server: cluster.server,
      ...(cluster.registry === undefined ? {} : { registry: cluster.registry }),
      ...(cluster.baseImage === undefined ? {} : { baseImage: cluster.baseImage }),
    };
    const tmp = `${stateFile(opts.name)}.tmp`;
    writeFileSync(tmp, JSON.stringify(state, null, 2));
    renameSync(tmp, stateFile(opts.name));
    const shutdown = async () => {
      say('stopping');
      await cluster.stop();
      if (forUser !== undefined) rmSync(forUser.dir, { recursive: true, force: true });
      rmSync(stateFile(opts.name), { force: true });
      process.exit(0);
    };
    process.once('SIGTERM', () => void shutdown());
    process.once('SIGINT', () => void shutdown());
  });

program
  .command('down')
  .description('Stop a control plane started with `up`; removes its processes and temp dir.')
  .option('--name <name>', 'cluster name', 'default')
  .action(async (opts: { name: string }) => {
    const state = readState(opts.name);
    if (!state || !alive(state.pid)) {
      rmSync(stateFile(opts.name), { force: true });
      say(`cluster '${opts.name}' is not running`);
      return;
    }
    process.kill(state.pid, 'SIGTERM');
    const deadline = Date.now() + 60_000;
    while (alive(state.pid) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 200));
    if (alive(state.pid)) process.kill(state.pid, 'SIGKILL');
    rmSync(state.dir, { recursive: true, force: true });
    if (state.userKubeconfigDir !== undefined)
      rmSync(state.userKubeconfigDir, { recursive: true, force: true });
    rmSync(stateFile(opts.name), { force: true });
    say(`cluster '${opts.name}' stopped`);
  });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  // Known failures are one line with what to do; anything else keeps its stack for a bug report.
  if (error instanceof ClusterError) process.stderr.write(`opkit-cluster: ${error.message}\n`);
  else process.stderr.write(`opkit-cluster: ${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
}
