// The author's path from an empty folder, as the README's quick start tells it: only a private npm registry that
// holds the packages this workspace publishes (and the third-party packages they need), `npm create opkit`, the
// generators, the unit and envtest tiers (no root), the bundle and catalog builds, and then OLM on a cluster with
// a real node installs the new operator from its catalog image and the operator reconciles a sample. The
// README's commands run as written; the one that starts a cluster (`opkit-cluster up`, which needs root and owns
// the machine's one real node) is stood in for by this suite's cluster, whose registry and kubeconfig fill the
// README's `<registry>` and `<kubeconfig>`.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { KubeRest, type LocalCluster, startCluster, workspaceRoot } from '@opkit/test-cluster';
import { type NpmRegistry, startNpmRegistry } from '@opkit/test-cluster/npm-registry';
import { eventually, type GuideCommand, guideCommands } from '@opkit/test-cluster/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const README = join(workspaceRoot, 'README.md');
const SECTION = 'Quick start';
/** The README's cluster: this suite's own stands in for it. */
const STANDS_IN = /\bopkit-cluster up\b/;

let registry: NpmRegistry | undefined;
let cluster: LocalCluster | undefined;
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
  await cluster?.stop();
  await registry?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
  if (timings.length > 0)
    log(
      `step times:\n${timings.map((t) => `  ${t.seconds.toFixed(1).padStart(7)} s  ${t.step}`).join('\n')}`,
    );
});

/** Runs one README command in `cwd` with the author's environment; rejects naming the README line. */
function run(command: GuideCommand, text: string, cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
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
    const timer = setTimeout(() => child.kill('SIGKILL'), 15 * 60_000);
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
    const placeholders = new Map<string, () => string>([
      ['<registry>', () => cluster?.registry ?? '<registry: no cluster yet>'],
      ['<kubeconfig>', () => cluster?.kubeconfigPath ?? '<kubeconfig: no cluster yet>'],
      ['<base image>', () => cluster?.baseImage ?? '<base image: no cluster yet>'],
    ]);

    for (const command of commands) {
      if (STANDS_IN.test(command.text)) {
        cluster = await timed('a cluster with a real node and OLM (stands in for opkit-cluster up)', () =>
          startCluster({ olm: true, onProgress: log }),
        );
        continue;
      }
      const text = [...placeholders].reduce((t, [p, value]) => t.replaceAll(p, value()), command.text);
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
    if (!cluster?.registry) throw new Error('the README never started a cluster: no `opkit-cluster up` step');

    // OLM installed the operator the quick start subscribed to, from the catalog image it published.
    const rest = new KubeRest(cluster.kubeConfig);
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
