// The author's path, end to end, in a copy of this workspace: scaffold an operator and two kinds with the
// generators, then the generated project's lint, type check and tests (its end-to-end tests against a
// control plane started here), the bundle build and the catalog build, and the scorecard on its bundle. No
// file is edited by hand between the steps.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type LocalCluster, startCluster } from '@opkit/test-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const exec = promisify(execFile);
const workspace = join(import.meta.dirname, '..', '..', '..');
let copy = '';
let cluster: LocalCluster | undefined;

/** Runs a command in the copy; its output is kept for the failure message. */
async function inCopy(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  try {
    const { stdout, stderr } = await exec(command, args, {
      cwd: copy,
      env: {
        ...process.env,
        NX_DAEMON: 'false',
        NX_NO_CLOUD: 'true',
        NX_TUI: 'false',
        CI: 'true',
        NO_COLOR: '1',
        FORCE_COLOR: '0',
        ...env,
      },
      maxBuffer: 64 * 1024 * 1024,
    });
    return `${stdout}${stderr}`;
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed:\n${stdout}\n${stderr}`.slice(-20_000));
  }
}

const nx = (...args: string[]) => inCopy(join(copy, 'node_modules', '.bin', 'nx'), args);

beforeAll(async () => {
  copy = mkdtempSync(join(tmpdir(), 'opkit-scaffold-'));
  // The workspace's files as git sees them (committed and new, not ignored ones), and its installed packages.
  const listed = spawnSync('git', ['ls-files', '-z', '-co', '--exclude-standard'], { cwd: workspace });
  const files = listed.stdout
    .toString()
    .split('\0')
    .filter((f) => f && existsSync(join(workspace, f)));
  const archive = spawnSync('tar', ['-c', '--null', '-T', '-', '-f', '-'], {
    cwd: workspace,
    input: files.join('\0'),
    maxBuffer: 1024 ** 3,
  });
  const extracted = spawnSync('tar', ['-x', '-f', '-'], { cwd: copy, input: archive.stdout });
  if (archive.status !== 0 || extracted.status !== 0)
    throw new Error(`copying the workspace failed: ${archive.stderr}${extracted.stderr}`);
  symlinkSync(join(workspace, 'node_modules'), join(copy, 'node_modules'));
  await exec('git', ['init', '-q'], { cwd: copy });
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
  if (copy) rmSync(copy, { recursive: true, force: true });
});

describe('scaffolding an operator with @opkit/nx', () => {
  it('generates an operator and its APIs that pass their own tests and join the bundles and the catalog', async () => {
    await nx('g', '@opkit/nx:operator', 'postgres-lite', '--no-interactive');
    await nx('g', '@opkit/nx:api', 'db.example.com/v1alpha1/PostgresInstance', '--project', 'postgres-lite');
    await nx('g', '@opkit/nx:api', 'db.example.com/v1/Backup', '--project', 'postgres-lite');
    await nx('g', '@opkit/nx:webhook', '--project', 'postgres-lite', '--kind', 'PostgresInstance');
    await nx('g', '@opkit/nx:webhook', '--project', 'postgres-lite', '--kind', 'Backup', '--no-defaulting');
    await nx('g', '@opkit/nx:version', 'v1beta1', '--project', 'postgres-lite', '--kind', 'PostgresInstance');
    const project = join(copy, 'operators', 'postgres-lite');
    expect(readdirSync(join(project, 'config', 'crd', 'bases')).sort()).toEqual([
      'db.example.com_backups.yaml',
      'db.example.com_postgresinstances.yaml',
    ]);

    // Its own checks, the end-to-end tests against a control plane of kwok nodes (its controllers create
    // no pods).
    cluster = await startCluster({ realNode: false });
    const checked = await inCopy(
      join(copy, 'node_modules', '.bin', 'nx'),
      [
        'run-many',
        '-t',
        'lint',
        'typecheck',
        'test',
        '-p',
        'postgres-lite',
        '--excludeTaskDependencies',
        '--outputStyle=static',
      ],
      { OPKIT_TEST_KUBECONFIG: cluster.kubeconfigPath },
    );
    // unit: the two reconcilers, the two kinds' webhooks and the alert rules (promtool); envtest: the two
    // controllers; e2e: the manager, the two kinds, their webhooks and PostgresInstance at v1beta1 through the
    // conversion webhook
    expect(checked).toMatch(/Test Files\s+13 passed \(13\)/);
    for (const file of [
      'backup-controller.spec.ts',
      'manager.spec.ts',
      'postgres-instance-webhooks.spec.ts',
      'postgres-instance-v1beta1.spec.ts',
      'envtest/backup.spec.ts',
      'monitoring/rules.spec.ts',
    ])
      expect(checked).toContain(file);

    // The main job picks it up: its bundle, validated and imaged; then the catalog target's render of the
    // templates over the bundles (its second step, the serving image, needs a base image from a registry).
    await nx('run', 'bundle:build', '--outputStyle=static');
    const catalogTarget = JSON.parse(readFileSync(join(copy, 'catalog', 'project.json'), 'utf8')) as {
      targets: { build: { options: { commands: { command: string }[] } } };
    };
    const [render] = catalogTarget.targets.build.options.commands;
    if (!render) throw new Error('catalog/project.json: the build target has no commands');
    await inCopy('sh', ['-c', render.command]);
    await inCopy(process.execPath, ['tools/opkit/bin/opkit.js', 'catalog', 'validate', 'catalog/configs']);
    const bundle = join(copy, 'bundles', 'postgres-lite-operator', '0.1.0');
    const manifests = readdirSync(join(bundle, 'manifests')).sort();
    expect(manifests).toEqual(
      expect.arrayContaining([
        'db.example.com_backups.yaml',
        'db.example.com_postgresinstances.yaml',
        'postgres-lite-operator.clusterserviceversion.yaml',
      ]),
    );
    const csv = parse(
      readFileSync(join(bundle, 'manifests', 'postgres-lite-operator.clusterserviceversion.yaml'), 'utf8'),
    ) as {
      spec: {
        customresourcedefinitions: { owned: { kind: string; version: string }[] };
        webhookdefinitions?: { type: string; generateName: string }[];
      };
    };
    // the webhooks travel in the CSV, for OLM to serve them with its own certificate
    expect(csv.spec.webhookdefinitions?.map((w) => w.type).sort()).toEqual([
      'ConversionWebhook',
      'MutatingAdmissionWebhook',
      'ValidatingAdmissionWebhook',
      'ValidatingAdmissionWebhook',
    ]);
    expect(csv.spec.customresourcedefinitions.owned.map((c) => `${c.kind} ${c.version}`).sort()).toEqual([
      'Backup v1',
      'PostgresInstance v1alpha1',
      'PostgresInstance v1beta1',
    ]);
    const rendered = await inCopy(process.execPath, [
      'tools/opkit/bin/opkit.js',
      'catalog',
      'render',
      'catalog/configs',
      '-o',
      'json',
    ]);
    expect(rendered).toContain('"name": "postgres-lite-operator.v0.1.0"');
    const scorecard = await inCopy(process.execPath, [
      'tools/opkit/bin/opkit.js',
      'scorecard',
      bundle,
      '-o',
      'json',
    ]);
    const results = JSON.parse(scorecard) as {
      items: { status: { results: { name: string; state: string }[] } }[];
    };
    const states = results.items.flatMap((i) => i.status.results.map((r) => `${r.name}: ${r.state}`));
    expect(states.length).toBeGreaterThan(0);
    expect(states.filter((s) => !s.endsWith(': pass'))).toEqual([]);
  }, 900_000);

  it('refuses what it cannot scaffold, saying why', async () => {
    await expect(nx('g', '@opkit/nx:operator', 'Bad_Name!', '--no-interactive')).rejects.toThrow(
      /operator name "Bad_Name!": use lower-case letters/,
    );
    await expect(nx('g', '@opkit/nx:api', 'cache/v1/Widget', '--project', 'memcached')).rejects.toThrow(
      /api group "cache": a DNS subdomain with at least one dot/,
    );
    await expect(
      nx('g', '@opkit/nx:api', 'cache.example.com/v1/Widget', '--project', 'opkit'),
    ).rejects.toThrow(/opkit is not an operator project scaffolded by @opkit\/nx:operator/);
    // The example operators have the generated layout, so the generators know their kinds.
    await expect(
      nx('g', '@opkit/nx:api', 'cache.example.com/v1/Memcached', '--project', 'memcached'),
    ).rejects.toThrow(
      /memcached has the kind Memcached at cache.example.com\/v1beta1 already: serve it at v1 too with nx g @opkit\/nx:version v1/,
    );
    // Webhooks it has already: said in one line, nothing changed.
    expect(await nx('g', '@opkit/nx:webhook', '--project', 'memcached', '--kind', 'Memcached')).toContain(
      'Memcached has defaulting, validation and conversion webhooks already (src/api/v1beta1/memcached-webhooks.ts): nothing changed',
    );
  }, 120_000);
});
