// The author's path from an empty folder, as the README's quick start tells it: only a private npm registry that
// holds the packages this workspace publishes (and the third-party packages they need), `npm create opkit`, the
// generators, the unit and envtest tiers (no root), the bundle and catalog builds, `npx opkit-cluster up --olm`
// from the generated workspace (the installed test kit; the suite runs as root), and then OLM on that cluster
// installs the new operator from its catalog image and the operator reconciles a sample. The README's commands
// run as written; its `<kubeconfig>`, `<registry>` and `<base image>` are what `opkit-cluster up` printed, and
// `npx opkit-cluster down` stops the cluster afterwards, also when the test failed.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { KubeRest, type PrintedCluster, parseReadyLines, workspaceRoot } from '@opkit/test-cluster';
import { type NpmRegistry, startNpmRegistry } from '@opkit/test-cluster/npm-registry';
import { eventually, type GuideCommand, guideCommands } from '@opkit/test-cluster/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const README = join(workspaceRoot, 'README.md');
const SECTION = 'Quick start';
/** The README's command that starts the cluster. */
const CLUSTER_UP = /\bopkit-cluster up\b/;
/** `opkit-cluster up` waits for the machine's one real node, which another run may hold for a while. */
const CLUSTER_UP_TIMEOUT_MS = 45 * 60_000;

let registry: NpmRegistry | undefined;
/** Where `opkit-cluster up` ran, for `opkit-cluster down` in afterAll. */
let clusterWorkspace: { cwd: string; env: NodeJS.ProcessEnv } | undefined;
let home = '';
const timings: { step: string; seconds: number }[] = [];
const log = (line: string) => process.stdout.write(`quick start: ${line}\n`);

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'opkit-author-'));
  registry = await startNpmRegistry({ onProgress: log });
  const published = await registry.publishWorkspace();
  log(`published ${published.map((p) => `${p.name}@${p.version}`).join(', ')}`);
}, 900_000);

afterAll(async () => {
  if (clusterWorkspace) {
    const { cwd, env } = clusterWorkspace;
    await timed('npx opkit-cluster down', () =>
      run({ text: 'npx opkit-cluster down', line: 0 }, 'npx opkit-cluster down', cwd, env),
    ).then(
      (output) => log(output.trim()),
      (error: unknown) => log(`opkit-cluster down failed: ${(error as Error).message}`),
    );
  }
  await registry?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
  if (timings.length > 0)
    log(
      `step times:\n${timings.map((t) => `  ${t.seconds.toFixed(1).padStart(7)} s  ${t.step}`).join('\n')}`,
    );
});

/** Runs one README command in `cwd` with the author's environment; rejects naming the README line. */
function run(
  command: GuideCommand,
  text: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutMs = 15 * 60_000,
): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', text], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const keep = (chunk: Buffer) => {
      output = `${output}${chunk.toString('utf8')}`.slice(-40_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', fail);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) done(output);
      else
        fail(
          new Error(
            `README.md:${command.line}: \`${text}\` failed (${signal ?? `exit ${code}`}):\n${output}`,
          ),
        );
    });
  });
}

/** `<kubeconfig>`, `<registry>` and `<base image>` from the lines `opkit-cluster up` printed once ready. */
function readyValues(output: string, line: number): Required<PrintedCluster> {
  const printed = parseReadyLines(output);
  if (printed?.registry === undefined || printed.baseImage === undefined) {
    throw new Error(
      `README.md:${line}: opkit-cluster up printed no kubeconfig, registry and base image:\n${output.slice(-4000)}`,
    );
  }
  return { kubeconfig: printed.kubeconfig, registry: printed.registry, baseImage: printed.baseImage };
}

async function timed<T>(step: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    timings.push({ step, seconds: (performance.now() - started) / 1000 });
  }
}

describe('the README quick start, from an empty folder', () => {
  it('creates a workspace from the published packages, tests it without root, and OLM installs its operator', async () => {
    if (!registry) throw new Error('the npm registry did not start');
    const commands = guideCommands(readFileSync(README, 'utf8'), SECTION, 'README.md');
    // Everything the author runs comes from the private registry: npm's cache is the author's own, empty one,
    // so a package the registry lacks fails the install instead of coming from elsewhere.
    const nodeBin = dirname(process.execPath);
    const env: NodeJS.ProcessEnv = {
      ...Object.fromEntries(
        Object.entries(process.env).filter(([k]) => !/^(npm_|NX_|VITEST|KUBECONFIG)/i.test(k)),
      ),
      PATH: [nodeBin, process.env.PATH ?? ''].join(delimiter),
      npm_config_userconfig: registry.npmrc,
      npm_config_cache: join(home, 'npm-cache'),
      npm_config_update_notifier: 'false',
      npm_config_fund: 'false',
      npm_config_audit: 'false',
      NX_DAEMON: 'false',
      NX_NO_CLOUD: 'true',
      NX_TUI: 'false',
      CI: 'true',
      NO_COLOR: '1',
    };
    let cwd = join(home, 'work');
    rmSync(cwd, { recursive: true, force: true });
    await run({ text: 'mkdir', line: 0 }, `mkdir -p ${cwd}`, home, env);
    let printed: Required<PrintedCluster> | undefined;
    const placeholders = new Map<string, () => string>([
      ['<registry>', () => printed?.registry ?? '<registry: no cluster yet>'],
      ['<kubeconfig>', () => printed?.kubeconfig ?? '<kubeconfig: no cluster yet>'],
      ['<base image>', () => printed?.baseImage ?? '<base image: no cluster yet>'],
    ]);

    for (const command of commands) {
      const text = [...placeholders].reduce((t, [p, value]) => t.replaceAll(p, value()), command.text);
      if (CLUSTER_UP.test(text)) {
        // As written, from the workspace: `down` in afterAll stops it, whatever happens from here on.
        clusterWorkspace = { cwd, env: { ...env } };
        log(`README.md:${command.line}: ${text}`);
        const output = await timed(text, () => run(command, text, cwd, env, CLUSTER_UP_TIMEOUT_MS));
        printed = readyValues(output, command.line);
        log(`opkit-cluster up printed: ${JSON.stringify(printed)}`);
        continue;
      }
      // Each command runs in a shell of its own: what `cd` and `export` change carries into the next ones.
      const cd = /^cd\s+(\S+)$/.exec(text);
      if (cd?.[1]) {
        cwd = resolve(cwd, cd[1]);
        continue;
      }
      const exported = /^export\s+([A-Za-z_]\w*)=(\S+)$/.exec(text);
      if (exported?.[1] && exported[2] !== undefined) {
        env[exported[1]] = exported[2];
        continue;
      }
      log(`README.md:${command.line}: ${text.split('\n')[0]}`);
      await timed(text.split('\n')[0] ?? text, () => run(command, text, cwd, env));
    }
    if (!printed) throw new Error('the README never started a cluster: no `opkit-cluster up` step');

    // OLM installed the operator the quick start subscribed to, from the catalog image it published.
    const rest = KubeRest.fromFile(printed.kubeconfig);
    try {
      const csv = await timed('OLM installs the operator (CSV Succeeded)', () =>
        eventually(
          'the memcached-operator CSV to succeed',
          async () => {
            const list = await rest.request<{
              items: { metadata: { name: string }; status?: { phase?: string } }[];
            }>('GET', '/apis/operators.coreos.com/v1alpha1/namespaces/operators/clusterserviceversions');
            const found = list.items.find((c) => c.metadata.name.startsWith('memcached-operator.'));
            if (found?.status?.phase !== 'Succeeded')
              throw new Error(`CSV: ${JSON.stringify(found?.status ?? 'none')}`);
            return found;
          },
          { timeoutMs: 300_000 },
        ),
      );
      expect(csv.metadata.name).toBe('memcached-operator.v0.1.0');

      // The operator reconciles the scaffold's sample: a ConfigMap of the sample's name and Available status.
      const samples = join(cwd, 'operators', 'memcached', 'config', 'samples');
      const sampleFile = join(samples, 'cache_v1alpha1_memcached.yaml');
      expect(existsSync(sampleFile)).toBe(true);
      const sample = parse(readFileSync(sampleFile, 'utf8')) as { metadata: { name: string } };
      // As `kubectl apply` is retried: the CSV succeeds once the Deployment is available, and the webhook
      // Service's endpoints follow the pod's readiness a moment later.
      await eventually(
        'the API server to take the sample through the operator webhooks',
        async () => {
          await rest.request('POST', '/apis/cache.example.com/v1alpha1/namespaces/default/memcacheds', {
            body: { ...sample, metadata: { ...sample.metadata, namespace: 'default' } },
          });
          return true;
        },
        { timeoutMs: 120_000, intervalMs: 1000 },
      );
      await timed('the operator reconciles the sample', () =>
        eventually(
          'the sample Memcached to be Available with its ConfigMap',
          async () => {
            const cr = await rest.request<{
              status?: { conditions?: { type: string; status: string }[] };
            }>(
              'GET',
              `/apis/cache.example.com/v1alpha1/namespaces/default/memcacheds/${sample.metadata.name}`,
            );
            const available = cr.status?.conditions?.find((c) => c.type === 'Available');
            if (available?.status !== 'True') throw new Error(`status: ${JSON.stringify(cr.status ?? {})}`);
            await rest.request('GET', `/api/v1/namespaces/default/configmaps/${sample.metadata.name}`);
            return true;
          },
          { timeoutMs: 180_000 },
        ),
      );
    } finally {
      rest.close();
    }
  }, 3_600_000);
});
