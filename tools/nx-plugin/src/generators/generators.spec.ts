import type { Tree } from '@nx/devkit';
import { logger, readJson } from '@nx/devkit';
import { createTreeWithEmptyWorkspace } from '@nx/devkit/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { apiGenerator } from './api/api.js';
import { nextSteps, operatorGenerator } from './operator/operator.js';
import { versionGenerator } from './version/version.js';
import { webhookGenerator } from './webhook/webhook.js';

// The generators on an in-memory workspace: what they write and what they refuse. (test/scaffold.spec.ts
// runs the generated project's own tests, the bundle and the catalog build in a copy of this workspace.)

let tree: Tree;
beforeEach(() => {
  tree = createTreeWithEmptyWorkspace();
  tree.write('package.json', JSON.stringify({ name: '@acme/source', workspaces: ['operators/*'] }));
  tree.write('catalog/templates/.keep', '');
});

const read = (path: string) => tree.read(path, 'utf-8') ?? '';

/** Every file of the workspace with its content, to show that a generator changed nothing. */
const files = () =>
  Object.fromEntries(tree.listChanges().map((c) => [c.path, c.content?.toString('utf8') ?? null]));

/** The lines generators log as warnings during `run`. */
async function warnings(run: () => Promise<unknown>): Promise<string[]> {
  const warn = vi.spyOn(logger, 'warn').mockImplementation(() => {});
  try {
    await run();
    return warn.mock.calls.map((args) => args.join(' '));
  } finally {
    warn.mockRestore();
  }
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the operator generator', () => {
  it('gives the new package the workspace root’s engines', async () => {
    const root = { name: '@acme/source', workspaces: ['operators/*'], engines: { node: '>=22.19' } };
    tree.write('package.json', JSON.stringify(root));
    await operatorGenerator(tree, { name: 'postgres-lite', domain: 'acme.io' });

    expect(readJson(tree, 'operators/postgres-lite/package.json').engines).toEqual({ node: '>=22.19' });
  });

  it('scaffolds the project in the kubebuilder layout, with release metadata and a catalog entry', async () => {
    await operatorGenerator(tree, { name: 'postgres-lite', domain: 'acme.io' });
    const root = 'operators/postgres-lite';
    for (const file of [
      'src/main.ts',
      'src/operator.ts',
      'src/api/index.ts',
      'src/controller/index.ts',
      'src/manifests/generate.ts',
      'config/default/kustomization.yaml',
      'config/manager/manager.yaml',
      'config/manifests/bases/postgres-lite-operator.clusterserviceversion.yaml',
      'config/rbac/kustomization.yaml',
      'config/scorecard/bases/config.yaml',
      'test/manager.spec.ts',
      'README.md',
    ]) {
      expect(tree.exists(`${root}/${file}`), file).toBe(true);
    }
    const pkg = readJson(tree, `${root}/package.json`);
    expect(pkg.name).toBe('@acme/postgres-lite-operator');
    expect(pkg.nx.name).toBe('postgres-lite');
    expect(pkg.nx.tags).toEqual(['operator']);
    expect(pkg.opkit).toEqual({
      package: 'postgres-lite-operator',
      channels: ['alpha'],
      image: 'registry.example/postgres-lite-operator',
      resources: [],
    });
    expect(read(`${root}/src/operator.ts`)).toContain("leaderElectionId: 'postgres-lite-operator.acme.io'");
    expect(read(`${root}/vitest.config.ts`)).toContain("from '@opkit/test-cluster/vitest-projects'");
    const template = parse(read('catalog/templates/postgres-lite-operator.yaml')) as {
      entries: { schema: string; image?: string }[];
    };
    expect(template.entries.find((e) => e.schema === 'olm.bundle')?.image).toBe(
      'bundles/postgres-lite-operator/0.1.0',
    );
  });

  it('scaffolds the operator alert rules, installed at start-up and tested with promtool beside them', async () => {
    await operatorGenerator(tree, { name: 'postgres-lite' });
    const root = 'operators/postgres-lite';
    const rules = read(`${root}/src/monitoring/rules.ts`);
    expect(rules).toContain("record: 'postgres_lite_operator_up_total'");
    expect(rules).toContain("alert: 'PostgresLiteOperatorDown'");
    expect(rules).toContain("up{pod=~'postgres-lite-operator-controller-manager-.*'}");
    const tests = parse(read(`${root}/src/monitoring/rules.test.yaml`)) as {
      rule_files: string[];
      tests: { alert_rule_test?: { alertname: string }[]; promql_expr_test?: { expr: string }[] }[];
    };
    expect(tests.rule_files).toEqual(['rules.yaml']);
    expect(tests.tests.flatMap((t) => t.alert_rule_test ?? []).map((t) => t.alertname)).toContain(
      'PostgresLiteOperatorDown',
    );
    expect(tests.tests.flatMap((t) => t.promql_expr_test ?? []).map((t) => t.expr)).toContain(
      'postgres_lite_operator_up_total',
    );
    expect(read(`${root}/src/monitoring/rules.spec.ts`)).toContain(
      'promtoolTestRules(promtool, postgresLiteRuleGroups, testFiles)',
    );
    expect(read(`${root}/src/operator.ts`)).toContain(
      "manager.add(prometheusRuleInstaller(manager.apiClient, rule, manager.logger, 'postgres-lite-operator'));",
    );
    expect(read(`${root}/src/manifests/generate.ts`)).toContain('namespacedRules: prometheusRuleRbac,');
    expect(read(`${root}/src/manifests/rules.ts`)).toContain('ruleFileYaml(postgresLiteRuleGroups)');
    expect(readJson(tree, `${root}/package.json`).nx.targets.rules.options.command).toBe(
      'node --import tsx src/manifests/rules.ts',
    );
  });

  it('writes a README whose command comments line up, whatever the name, and names the envtest tier', async () => {
    await operatorGenerator(tree, { name: 'postgres-lite' });
    const readme = read('operators/postgres-lite/README.md');
    for (const block of readme
      .split('```sh\n')
      .slice(1)
      .map((b) => b.split('```')[0] ?? '')) {
      const columns = new Set(
        block.split('\n').flatMap((line) => (line.includes(' # ') ? [line.indexOf(' # ')] : [])),
      );
      expect(columns.size, block).toBeLessThanOrEqual(1);
    }
    expect(readme).toContain('export KUBECONFIG=<the printed path>\nnpx nx run postgres-lite:deploy');
    expect(readme).toMatch(/\| `test\/` \|[^\n]*envtest/);
    expect(read('operators/postgres-lite/vitest.config.ts')).toContain('test/envtest/**/*.spec.ts');
  });

  it('suggests a first kind only when the operator has none', () => {
    expect(nextSteps('npm install', 'db', false).join('\n')).toContain('npx nx g @opkit/nx:api');
    expect(nextSteps('npm install', 'db', true).join('\n')).not.toContain('@opkit/nx:api');
    expect(nextSteps('npm install', 'db', true)).toEqual([
      'npm install              # records the new workspace package in the lock file',
      'npx nx run db:test:unit  # then test:envtest, test:e2e (see its README)',
    ]);
  });

  it('refuses a name that cannot name a package, and a project that exists', async () => {
    await expect(operatorGenerator(tree, { name: 'Bad_Name!' })).rejects.toThrow(/use lower-case letters/);
    await operatorGenerator(tree, { name: 'db' });
    await expect(operatorGenerator(tree, { name: 'db' })).rejects.toThrow(/operators\/db exists already/);
  });
});

describe('the api generator', () => {
  beforeEach(async () => {
    await operatorGenerator(tree, { name: 'postgres-lite' });
  });

  it('adds the kind: schema, CRD, controller, sample, roles, CSV entry, and the lists of kinds', async () => {
    await apiGenerator(tree, { api: 'db.example.com/v1alpha1/PostgresInstance', project: 'postgres-lite' });
    const root = 'operators/postgres-lite';
    for (const file of [
      'src/api/v1alpha1/postgres-instance.ts',
      'src/api/postgres-instance-crd.ts',
      'src/controller/postgres-instance-controller.ts',
      'src/controller/postgres-instance-controller.spec.ts',
      'config/samples/db_v1alpha1_postgresinstance.yaml',
      'config/rbac/postgresinstance_editor_role.yaml',
      'config/rbac/postgresinstance_viewer_role.yaml',
      'test/postgres-instance.spec.ts',
      'test/envtest/postgres-instance.spec.ts',
    ]) {
      expect(tree.exists(`${root}/${file}`), file).toBe(true);
    }
    expect(readJson(tree, `${root}/package.json`).opkit.resources).toEqual([
      { group: 'db.example.com', version: 'v1alpha1', kind: 'PostgresInstance', plural: 'postgresinstances' },
    ]);
    expect(read(`${root}/src/controller/index.ts`)).toContain('setupPostgresInstanceController(manager');
    expect(read(`${root}/src/api/index.ts`)).toContain(
      '{ crd: postgresInstanceCrd, validateSample: validatePostgresInstance }',
    );
    expect(parse(read(`${root}/config/crd/kustomization.yaml`))).toEqual({
      resources: ['bases/db.example.com_postgresinstances.yaml'],
    });
    expect(parse(read(`${root}/config/samples/kustomization.yaml`))).toEqual({
      resources: ['db_v1alpha1_postgresinstance.yaml'],
    });
    const csvText = read(`${root}/config/manifests/bases/postgres-lite-operator.clusterserviceversion.yaml`);
    expect(csvText).toContain('# Hand-written part of the ClusterServiceVersion');
    const csv = parse(csvText) as {
      spec: { customresourcedefinitions: { owned: { name: string; specDescriptors: { path: string }[] }[] } };
    };
    expect(csv.spec.customresourcedefinitions.owned).toMatchObject([
      { name: 'postgresinstances.db.example.com', specDescriptors: [{ path: 'message' }] },
    ]);
  });

  it('keeps every kind when a second one is added', async () => {
    await apiGenerator(tree, { api: 'db.example.com/v1alpha1/PostgresInstance', project: 'postgres-lite' });
    await apiGenerator(tree, { api: 'db.example.com/v1/Policy', project: 'postgres-lite' });
    const root = 'operators/postgres-lite';
    expect(parse(read(`${root}/config/crd/kustomization.yaml`))).toEqual({
      resources: ['bases/db.example.com_postgresinstances.yaml', 'bases/db.example.com_policies.yaml'],
    });
    const controllers = read(`${root}/src/controller/index.ts`);
    expect(controllers).toContain('setupPostgresInstanceController(manager');
    expect(controllers).toContain('setupPolicyController(manager');
    const csv = parse(
      read(`${root}/config/manifests/bases/postgres-lite-operator.clusterserviceversion.yaml`),
    ) as { spec: { customresourcedefinitions: { owned: { kind: string }[] } } };
    expect(csv.spec.customresourcedefinitions.owned.map((o) => o.kind)).toEqual([
      'PostgresInstance',
      'Policy',
    ]);
  });

  it('types the kind’s token with the kind’s objects, and tests the controller on envtest', async () => {
    await apiGenerator(tree, { api: 'db.example.com/v1alpha1/PostgresInstance', project: 'postgres-lite' });
    const root = 'operators/postgres-lite';
    expect(read(`${root}/src/api/v1alpha1/postgres-instance.ts`)).toContain(
      "export const POSTGRES_INSTANCE = kind<PostgresInstance>('db.example.com/v1alpha1', 'PostgresInstance');",
    );
    const envtest = read(`${root}/test/envtest/postgres-instance.spec.ts`);
    expect(envtest).toContain("import { envtest } from '@opkit/test-cluster/envtest';");
    expect(envtest).toContain('webhookPort: env.webhook.port,');
    expect(envtest).toContain('webhookCertPath: env.webhook.certDir,');
    // a manager that fails to start fails beforeAll instead of leaving it waiting for the election
    expect(envtest).toContain('await Promise.race([manager.elected, running]);');
    expect(envtest).toContain("'config', 'samples', 'db_v1alpha1_postgresinstance.yaml'");
    expect(envtest).toContain('createPostgresLiteOperator({');
  });

  it('changes nothing, saying so in one line, when the kind is asked for again', async () => {
    await apiGenerator(tree, { api: 'db.example.com/v1alpha1/Backup', project: 'postgres-lite' });
    const before = files();
    const said = await warnings(() =>
      apiGenerator(tree, { api: 'db.example.com/v1alpha1/Backup', project: 'postgres-lite' }),
    );
    expect(files()).toEqual(before);
    expect(said).toEqual([
      'postgres-lite has the kind Backup at db.example.com/v1alpha1 already (src/api/v1alpha1/backup.ts): nothing changed',
    ]);
  });

  it('refuses a kind the project has at another version, a malformed API and a project it did not scaffold', async () => {
    await apiGenerator(tree, { api: 'db.example.com/v1alpha1/Backup', project: 'postgres-lite' });
    await expect(
      apiGenerator(tree, { api: 'db.example.com/v1/Backup', project: 'postgres-lite' }),
    ).rejects.toThrow(
      'postgres-lite has the kind Backup at db.example.com/v1alpha1 already: serve it at v1 too with nx g @opkit/nx:version v1 --project postgres-lite --kind Backup',
    );
    await expect(
      apiGenerator(tree, { api: 'db.example.com/v1/Archive', project: 'postgres-lite', plural: 'backups' }),
    ).rejects.toThrow('postgres-lite serves backups.db.example.com already');
    await expect(apiGenerator(tree, { api: 'db/v1/Widget', project: 'postgres-lite' })).rejects.toThrow(
      /api group "db": a DNS subdomain with at least one dot/,
    );
    await expect(
      apiGenerator(tree, { api: 'db.example.com/1/Widget', project: 'postgres-lite' }),
    ).rejects.toThrow(/api version "1"/);
    await expect(
      apiGenerator(tree, { api: 'db.example.com/v1/widget', project: 'postgres-lite' }),
    ).rejects.toThrow(/kind "widget": an upper-camel-case name/);
    await expect(apiGenerator(tree, { api: 'db.example.com/v1/Widget', project: 'nothing' })).rejects.toThrow(
      /no project named "nothing"/,
    );
  });
});

describe('the webhook generator', () => {
  beforeEach(async () => {
    await operatorGenerator(tree, { name: 'postgres-lite' });
    await apiGenerator(tree, { api: 'db.example.com/v1alpha1/PostgresInstance', project: 'postgres-lite' });
  });

  it('adds the kind’s webhooks, the webhook Service and certificate mount, and serves them in the cluster', async () => {
    // An entry of the author's own in config/default stays.
    const defaults = 'operators/postgres-lite/config/default/kustomization.yaml';
    tree.write(
      defaults,
      read(defaults).replace(
        '  - metrics_service.yaml\n',
        '  - metrics_service.yaml\n  - ../prometheus # alerts\n',
      ),
    );
    await webhookGenerator(tree, { project: 'postgres-lite', kind: 'PostgresInstance', defaulting: false });
    const root = 'operators/postgres-lite';
    const webhooks = read(`${root}/src/api/v1alpha1/postgres-instance-webhooks.ts`);
    expect(webhooks).toContain('validator: postgresInstanceValidator');
    expect(webhooks).not.toContain('Defaulter');
    expect(readJson(tree, `${root}/package.json`).opkit.resources[0].webhooks).toEqual({
      defaulting: false,
      validation: true,
    });
    expect(read(`${root}/src/api/index.ts`)).toContain(
      'registerWebhooks(manager, postgresInstanceWebhooks);',
    );
    expect(parse(read(`${root}/config/default/kustomization.yaml`))).toMatchObject({
      resources: expect.arrayContaining(['../webhook', '../prometheus']),
      patches: [{ path: 'manager_webhook_patch.yaml' }],
    });
    expect(read(`${root}/config/default/kustomization.yaml`)).toContain(
      "  - ../manager\n  # The webhooks' serving certificate is not part of it: `opkit deploy` issues it.\n  - ../webhook\n",
    );
    expect(parse(read(`${root}/config/manifests/kustomization.yaml`)).patches).toEqual([
      {
        target: {
          group: 'apps',
          version: 'v1',
          kind: 'Deployment',
          name: 'postgres-lite-operator-controller-manager',
        },
        patch: expect.stringContaining('path: /spec/template/spec/volumes'),
      },
    ]);
    expect(tree.exists(`${root}/config/webhook/service.yaml`)).toBe(true);
    const manager = read(`${root}/config/manager/manager.yaml`);
    expect(manager).not.toContain('ENABLE_WEBHOOKS');
    expect(manager).toContain('pod-security.kubernetes.io/enforce: restricted');
  });

  it('refuses a kind the project lacks, no webhook at all, and a conversion with nothing to convert', async () => {
    await expect(webhookGenerator(tree, { project: 'postgres-lite', kind: 'Backup' })).rejects.toThrow(
      'postgres-lite has no kind "Backup" (its kinds: PostgresInstance)',
    );
    await expect(
      webhookGenerator(tree, {
        project: 'postgres-lite',
        kind: 'PostgresInstance',
        defaulting: false,
        validation: false,
      }),
    ).rejects.toThrow('nothing to scaffold');
    await expect(
      webhookGenerator(tree, { project: 'postgres-lite', kind: 'PostgresInstance', conversion: true }),
    ).rejects.toThrow(
      'PostgresInstance is served at v1alpha1 only, so there is nothing to convert: nx g @opkit/nx:version <version> --project postgres-lite --kind PostgresInstance adds a version with its conversion webhook',
    );
  });

  it('changes nothing, saying so in one line, when asked for webhooks the kind has', async () => {
    await webhookGenerator(tree, { project: 'postgres-lite', kind: 'PostgresInstance' });
    const before = files();
    for (const again of [{}, { defaulting: false }, { validation: false }]) {
      const said = await warnings(() =>
        webhookGenerator(tree, { project: 'postgres-lite', kind: 'PostgresInstance', ...again }),
      );
      expect(said).toEqual([
        'PostgresInstance has defaulting and validation webhooks already (src/api/v1alpha1/postgres-instance-webhooks.ts): nothing changed',
      ]);
    }
    expect(files()).toEqual(before);
  });

  it('adds validation to a kind with defaulting only, keeping the defaulter and its tests', async () => {
    const root = 'operators/postgres-lite';
    await webhookGenerator(tree, { project: 'postgres-lite', kind: 'PostgresInstance', validation: false });
    await webhookGenerator(tree, { project: 'postgres-lite', kind: 'PostgresInstance', defaulting: false });
    const webhooks = read(`${root}/src/api/v1alpha1/postgres-instance-webhooks.ts`);
    expect(webhooks.match(/export const postgresInstanceDefaulter/g)).toHaveLength(1);
    expect(webhooks.match(/export const postgresInstanceValidator/g)).toHaveLength(1);
    expect(webhooks).toMatch(
      /defaulter: postgresInstanceDefaulter,?\s+validator: postgresInstanceValidator,?\s*\};/,
    );
    expect(webhooks).toMatch(/type FieldProblem/);
    expect(webhooks.match(/from '@opkit\/controller-runtime\/webhook'/g)).toHaveLength(1);
    const unit = read(`${root}/src/api/v1alpha1/postgres-instance-webhooks.spec.ts`);
    expect(unit).toMatch(/import \{ postgresInstanceDefaulter,\s*postgresInstanceValidator \}/);
    expect(unit.match(/\bit\('/g)).toHaveLength(2);
    expect(read(`${root}/test/postgres-instance-webhooks.spec.ts`).match(/\bit\('/g)).toHaveLength(2);
    expect(readJson(tree, `${root}/package.json`).opkit.resources[0].webhooks).toEqual({
      defaulting: true,
      validation: true,
    });
    expect(parse(read(`${root}/config/webhook/kustomization.yaml`)).resources).toEqual([
      'manifests.yaml',
      'service.yaml',
    ]);
  });
});

describe('the version generator', () => {
  const root = 'operators/postgres-lite';
  beforeEach(async () => {
    await operatorGenerator(tree, { name: 'postgres-lite' });
    await apiGenerator(tree, { api: 'db.example.com/v1alpha1/PostgresInstance', project: 'postgres-lite' });
  });

  it('serves the kind at the new version, converted to and from its storage version by a conversion webhook', async () => {
    await versionGenerator(tree, { version: 'v1beta1', project: 'postgres-lite', kind: 'PostgresInstance' });
    expect(read(`${root}/src/api/v1beta1/postgres-instance.ts`)).toContain(
      "kind<PostgresInstance>('db.example.com/v1beta1', 'PostgresInstance')",
    );
    expect(read(`${root}/src/api/v1beta1/postgres-instance-conversion.ts`)).toContain(
      'export const v1beta1Spoke: Spoke<PostgresInstance, Hub>',
    );
    const crd = read(`${root}/src/api/postgres-instance-crd.ts`);
    expect(crd).toContain("import * as v1beta1 from './v1beta1/postgres-instance.js';");
    expect(crd).toMatch(
      /name: 'v1beta1',\s+served: true,\s+storage: false,\s+schema: v1beta1\.postgresInstanceSchema/,
    );
    expect(crd).toMatch(/name: 'v1alpha1',\s+served: true,\s+storage: true,/);
    // No admission webhooks yet: a declaration with the conversion alone.
    const webhooks = read(`${root}/src/api/v1alpha1/postgres-instance-webhooks.ts`);
    expect(webhooks).toContain("conversion: { hub: 'v1alpha1', spokes: { v1beta1: v1beta1Spoke } },");
    expect(webhooks).not.toContain('validator:');
    expect(readJson(tree, `${root}/package.json`).opkit.resources[0]).toMatchObject({
      otherVersions: ['v1beta1'],
      webhooks: { defaulting: false, validation: false, conversion: true },
    });
    expect(read(`${root}/src/api/index.ts`)).toContain(
      "export * as v1beta1 from './v1beta1/postgres-instance.js';",
    );
    expect(parse(read(`${root}/config/crd/kustomization.yaml`))).toMatchObject({
      patches: [{ path: 'patches/webhook_in_postgresinstances.yaml' }],
      configurations: ['kustomizeconfig.yaml'],
    });
    expect(read(`${root}/config/samples/db_v1beta1_postgresinstance.yaml`)).toContain(
      'apiVersion: db.example.com/v1beta1',
    );
    const csv = parse(
      read(`${root}/config/manifests/bases/postgres-lite-operator.clusterserviceversion.yaml`),
    );
    expect(csv.spec.customresourcedefinitions.owned.map((o: { version: string }) => o.version)).toEqual([
      'v1alpha1',
      'v1beta1',
    ]);
    expect(csv.spec.installModes.filter((m: { supported: boolean }) => m.supported)).toEqual([
      { type: 'AllNamespaces', supported: true },
    ]);
    expect(read(`${root}/config/manager/manager.yaml`)).not.toContain('ENABLE_WEBHOOKS');
  });

  it('adds the conversion to the admission webhooks a kind has, and a third version to both', async () => {
    await webhookGenerator(tree, { project: 'postgres-lite', kind: 'PostgresInstance' });
    await versionGenerator(tree, { version: 'v1beta1', project: 'postgres-lite', kind: 'PostgresInstance' });
    await versionGenerator(tree, { version: 'v1', project: 'postgres-lite', kind: 'PostgresInstance' });
    const webhooks = read(`${root}/src/api/v1alpha1/postgres-instance-webhooks.ts`);
    expect(webhooks).toContain('validator: postgresInstanceValidator');
    expect(webhooks).toMatch(
      /conversion: \{ hub: 'v1alpha1', spokes: \{ v1beta1: v1beta1Spoke, v1: v1Spoke \} \}/,
    );
    expect(webhooks).toContain("import { v1Spoke } from '../v1/postgres-instance-conversion.js';");
    expect(readJson(tree, `${root}/package.json`).opkit.resources[0]).toMatchObject({
      otherVersions: ['v1beta1', 'v1'],
      webhooks: { defaulting: true, validation: true, conversion: true },
    });
    expect(read(`${root}/src/api/postgres-instance-crd.ts`).match(/storage: false/g)).toHaveLength(2);
  });

  it('changes nothing, saying so in one line, for a version the kind is served at', async () => {
    await versionGenerator(tree, { version: 'v1beta1', project: 'postgres-lite', kind: 'PostgresInstance' });
    const before = files();
    const said = [
      ...(await warnings(() =>
        versionGenerator(tree, { version: 'v1beta1', project: 'postgres-lite', kind: 'PostgresInstance' }),
      )),
      ...(await warnings(() =>
        versionGenerator(tree, { version: 'v1alpha1', project: 'postgres-lite', kind: 'PostgresInstance' }),
      )),
    ];
    expect(files()).toEqual(before);
    expect(said).toEqual([
      'PostgresInstance is served at v1beta1 already (src/api/v1beta1/postgres-instance.ts): nothing changed',
      'PostgresInstance is served at v1alpha1 already (src/api/v1alpha1/postgres-instance.ts, its storage version): nothing changed',
    ]);
  });

  it('gives a kind converted only a consistent config/webhook: the Service, no admission configurations', async () => {
    await versionGenerator(tree, { version: 'v1beta1', project: 'postgres-lite', kind: 'PostgresInstance' });
    // manifests.yaml is generated for admission webhooks only: kustomize would fail on a listed missing file.
    expect(parse(read(`${root}/config/webhook/kustomization.yaml`))).toEqual({
      resources: ['service.yaml'],
      configurations: ['kustomizeconfig.yaml'],
    });
    expect(tree.exists(`${root}/config/webhook/service.yaml`)).toBe(true);
    expect(tree.exists(`${root}/config/crd/kustomizeconfig.yaml`)).toBe(true);
    expect(parse(read(`${root}/config/default/kustomization.yaml`))).toMatchObject({
      resources: expect.arrayContaining(['../webhook']),
      patches: [{ path: 'manager_webhook_patch.yaml' }],
    });
    // The manager serves the conversion: the declaration is registered and the Deployment enables webhooks.
    expect(read(`${root}/src/api/index.ts`)).toContain(
      'registerWebhooks(manager, postgresInstanceWebhooks);',
    );
    expect(read(`${root}/config/manager/manager.yaml`)).not.toContain('ENABLE_WEBHOOKS');
    // A conversion has no admission rules to unit-test: no test file without tests.
    expect(tree.exists(`${root}/src/api/v1alpha1/postgres-instance-webhooks.spec.ts`)).toBe(false);
    const webhooks = read(`${root}/src/api/v1alpha1/postgres-instance-webhooks.ts`);
    expect(webhooks).toContain("import { type KindWebhooks } from '@opkit/controller-runtime/webhook';");
  });

  it('takes admission webhooks after the version, keeping the conversion', async () => {
    await versionGenerator(tree, { version: 'v1beta1', project: 'postgres-lite', kind: 'PostgresInstance' });
    await webhookGenerator(tree, { project: 'postgres-lite', kind: 'PostgresInstance' });
    const webhooks = read(`${root}/src/api/v1alpha1/postgres-instance-webhooks.ts`);
    expect(webhooks).toContain("conversion: { hub: 'v1alpha1', spokes: { v1beta1: v1beta1Spoke } }");
    expect(webhooks).toContain('defaulter: postgresInstanceDefaulter');
    expect(webhooks).toContain('validator: postgresInstanceValidator');
    expect(
      read(`${root}/src/api/v1alpha1/postgres-instance-webhooks.spec.ts`).match(/\bit\('/g),
    ).toHaveLength(2);
    expect(readJson(tree, `${root}/package.json`).opkit.resources[0].webhooks).toEqual({
      defaulting: true,
      validation: true,
      conversion: true,
    });
    expect(parse(read(`${root}/config/webhook/kustomization.yaml`)).resources).toEqual([
      'manifests.yaml',
      'service.yaml',
    ]);
    const said = await warnings(() =>
      webhookGenerator(tree, { project: 'postgres-lite', kind: 'PostgresInstance', conversion: true }),
    );
    expect(said).toEqual([
      'PostgresInstance has defaulting, validation and conversion webhooks already (src/api/v1alpha1/postgres-instance-webhooks.ts): nothing changed',
    ]);
  });

  it('adds admission webhooks to a conversion whose imports Biome made type-only', async () => {
    await versionGenerator(tree, { version: 'v1beta1', project: 'postgres-lite', kind: 'PostgresInstance' });
    const path = `${root}/src/api/v1alpha1/postgres-instance-webhooks.ts`;
    // What `biome check --write` makes of the import of the conversion-only declaration.
    tree.write(
      path,
      read(path).replace(
        "import { type KindWebhooks } from '@opkit/controller-runtime/webhook';",
        "import type { KindWebhooks } from '@opkit/controller-runtime/webhook';",
      ),
    );
    await webhookGenerator(tree, { project: 'postgres-lite', kind: 'PostgresInstance', defaulting: false });
    expect(read(path)).toContain(
      "import { type KindWebhooks, type FieldProblem, invalidObject, type Validator, type Warnings } from '@opkit/controller-runtime/webhook';",
    );
  });

  it('serves two kinds at the same older version, exported together under its namespace', async () => {
    await apiGenerator(tree, { api: 'db.example.com/v1/Backup', project: 'postgres-lite' });
    await versionGenerator(tree, { version: 'v1beta1', project: 'postgres-lite', kind: 'PostgresInstance' });
    await versionGenerator(tree, { version: 'v1beta1', project: 'postgres-lite', kind: 'Backup' });
    expect(read(`${root}/src/api/index.ts`)).toContain("export * as v1beta1 from './v1beta1/index.js';");
    expect(read(`${root}/src/api/v1beta1/index.ts`)).toContain(
      "export * from './backup.js';\nexport * from './postgres-instance.js';",
    );
  });

  it('refuses a malformed version and a kind the project lacks', async () => {
    await expect(
      versionGenerator(tree, { version: 'beta2', project: 'postgres-lite', kind: 'PostgresInstance' }),
    ).rejects.toThrow('api version "beta2": e.g. v1, v1alpha1 or v2beta3');
    await expect(
      versionGenerator(tree, { version: 'v2', project: 'postgres-lite', kind: 'Backup' }),
    ).rejects.toThrow('postgres-lite has no kind "Backup"');
  });
});
