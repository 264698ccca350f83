import { join } from 'node:path';
import { readJson, readNxJson, readProjectConfiguration, type Tree } from '@nx/devkit';
import { createTree, createTreeWithEmptyWorkspace } from '@nx/devkit/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { pluginVersionOf } from '../../versions.js';
import { initGenerator } from '../init/init.js';
import { operatorGenerator } from '../operator/operator.js';
import { presetGenerator } from './preset.js';
import { TEST_COMMAND } from './workspace-files.js';

// The preset on an empty tree (what `npm create opkit` runs it on), and init on an existing Nx workspace.

const read = (tree: Tree, path: string) => tree.read(path, 'utf-8') ?? '';
type Targets = Record<string, { command?: string; dependsOn?: unknown[]; options?: Record<string, unknown> }>;

describe('the preset', () => {
  let tree: Tree;
  beforeEach(() => {
    tree = createTree();
    tree.delete('.prettierrc'); // the testing tree's own: the preset starts from an empty directory
  });

  it('writes the workspace files the contract names, and nothing else without an operator', async () => {
    await presetGenerator(tree, { name: 'acme-operators', skipInstall: true });
    const written = tree
      .listChanges()
      .map((c) => c.path)
      .sort();
    expect(written).toEqual([
      '.ci/run',
      '.gitignore',
      'README.md',
      'biome.json',
      'bundles/project.json',
      'catalog/project.json',
      'catalog/templates/.gitkeep',
      'nx.json',
      'package.json',
      'tsconfig.base.json',
    ]);
    const pkg = readJson(tree, 'package.json');
    expect(pkg).toMatchObject({
      name: 'acme-operators',
      private: true,
      type: 'module',
      workspaces: ['operators/*'],
    });
    // the opkit packages at exactly the versions the plugin was released with
    for (const name of ['@opkit/controller-runtime', '@opkit/controller-tools']) {
      expect(pkg.dependencies[name]).toMatch(/^\d+\.\d+\.\d+$/);
      expect(pkg.dependencies[name]).toBe(pluginVersionOf(name));
    }
    for (const name of ['@opkit/nx', '@opkit/cli', '@opkit/test-cluster']) {
      expect(pkg.devDependencies[name]).toMatch(/^\d+\.\d+\.\d+$/);
    }
    expect(Object.keys(pkg.devDependencies)).toEqual(
      expect.arrayContaining(['nx', 'vitest', 'typescript', '@biomejs/biome', 'tsx']),
    );
    expect(pkg.dependencies['@sinclair/typebox']).toBeDefined();
  });

  it('gives CI exactly the README’s test command, in an executable .ci/run', async () => {
    await presetGenerator(tree, { skipInstall: true });
    const run = read(tree, '.ci/run');
    expect(run.startsWith('#!/usr/bin/env bash\n')).toBe(true);
    expect(run.trim().split('\n').at(-1)).toBe(TEST_COMMAND);
    expect(read(tree, 'README.md')).toContain(`\`\`\`sh\n${TEST_COMMAND}\n\`\`\``);
    expect(tree.listChanges().find((c) => c.path === '.ci/run')?.options?.mode).toBe('755');
    // each tier says what it needs
    expect(read(tree, 'README.md')).toMatch(/\| unit \|[^\n]*nothing/);
    expect(read(tree, 'README.md')).toMatch(/\| envtest \|[^\n]*no root/);
    expect(read(tree, 'README.md')).toMatch(/\| e2e \|[^\n]*root/);
    expect(read(tree, 'README.md')).toMatch(/\| envtest \|[^\n]*Go ≥ 1\.26/);
    // the deploy step uses the kubeconfig `opkit-cluster up` printed
    expect(read(tree, 'README.md')).toMatch(
      /opkit-cluster up[^\n]*\nexport KUBECONFIG=[^\n]*\nnpx nx run <name>:deploy/,
    );
  });

  it('configures Nx: the shared lint and typecheck targets, and the operator generator’s defaults', async () => {
    await presetGenerator(tree, { domain: 'acme.io', skipInstall: true });
    const nx = readJson(tree, 'nx.json');
    expect(nx.targetDefaults.lint.options.command).toBe('biome check {projectRoot}');
    expect(nx.targetDefaults.typecheck.options.command).toBe('tsc -p {projectRoot}/tsconfig.json');
    expect(nx.generators['@opkit/nx:operator']).toEqual({ directory: 'operators', domain: 'acme.io' });
    // published packages: their built JavaScript and declarations, no source condition
    expect(readJson(tree, 'tsconfig.base.json').compilerOptions.customConditions).toBeUndefined();
  });

  it('builds bundles and the catalog with the opkit command of node_modules/.bin', async () => {
    await presetGenerator(tree, { skipInstall: true });
    const bundle = readJson(tree, 'bundles/project.json');
    expect(bundle.name).toBe('bundle');
    expect(bundle.targets.build.options.command).toBe(
      'opkit bundle build-all --operators operators --bundles bundles --images dist/images',
    );
    expect(bundle.targets.build.dependsOn).toEqual([{ projects: ['tag:operator'], target: 'manifests' }]);
    const catalog = readJson(tree, 'catalog/project.json');
    expect(catalog.targets.build.dependsOn).toEqual(['bundle:build']);
    expect(catalog.targets.build.options.commands[0].command).toMatch(
      /^opkit catalog build --template catalog\/templates\/\*\.yaml --bundles bundles --operators operators /,
    );
  });

  it('with --operator and --api, scaffolds both with the workspace’s versions and no repository paths', async () => {
    await presetGenerator(tree, {
      operator: 'postgres-lite',
      api: 'db.acme.io/v1alpha1/PostgresInstance',
      domain: 'acme.io',
      skipInstall: true,
    });
    const root = 'operators/postgres-lite';
    const pkg = readJson(tree, `${root}/package.json`);
    // the workspace's package name `operators` has no npm scope, so neither has the operator's
    expect(pkg.name).toBe('postgres-lite-operator');
    expect(pkg.dependencies['@opkit/controller-runtime']).toBe(pluginVersionOf('@opkit/controller-runtime'));
    expect(pkg.devDependencies['@opkit/test-cluster']).toBe(pluginVersionOf('@opkit/test-cluster'));
    expect(pkg.opkit.resources).toEqual([
      { group: 'db.acme.io', version: 'v1alpha1', kind: 'PostgresInstance', plural: 'postgresinstances' },
    ]);
    const targets = pkg.nx.targets as Targets;
    const text = JSON.stringify(targets);
    expect(text).not.toContain('tools/opkit');
    expect(text).not.toContain('opkit:build');
    expect(text).not.toContain('@opkit/source');
    expect(text).not.toContain('cluster:prepare');
    expect(targets.deploy?.options?.command).toBe('opkit deploy --operator .');
    expect(read(tree, `${root}/src/operator.ts`)).toContain("'postgres-lite-operator.acme.io'");
    expect(tree.exists('catalog/templates/postgres-lite-operator.yaml')).toBe(true);
  });

  it('names an operator package in the npm scope of the workspace’s name', async () => {
    tree.write('package.json', JSON.stringify({ name: '@opkit/source' }));
    await presetGenerator(tree, { operator: 'db', skipInstall: true });
    expect(readJson(tree, 'operators/db/package.json').name).toBe('@opkit/db-operator');
  });

  it('refuses --api without --operator', async () => {
    await expect(presetGenerator(tree, { api: 'db.acme.io/v1/Thing', skipInstall: true })).rejects.toThrow(
      '--api needs --operator',
    );
  });

  it('keeps what create-nx-workspace wrote before it: nx.json settings and package.json fields', async () => {
    tree.write('nx.json', JSON.stringify({ defaultBase: 'trunk' }));
    tree.write(
      'package.json',
      JSON.stringify({ name: '@acme/source', scripts: { build: 'nx run-many -t build' } }),
    );
    await presetGenerator(tree, { skipInstall: true });
    expect(readJson(tree, 'nx.json').defaultBase).toBe('trunk');
    const pkg = readJson(tree, 'package.json');
    expect(pkg.name).toBe('@acme/source');
    expect(pkg.scripts.build).toBe('nx run-many -t build');
    expect(pkg.scripts.test).toBe('nx run-many -t lint typecheck test -c unit');
  });

  it('keeps root files the workspace has, and replaces only create-nx-workspace’s defaults', async () => {
    tree.write('README.md', '# Acme\n');
    tree.write('biome.json', '{}\n');
    tree.write('tsconfig.base.json', '{ "compilerOptions": {} }\n');
    tree.write(
      '.gitignore',
      '# See https://docs.github.com/en/get-started/getting-started-with-git/ignoring-files\n',
    );
    await presetGenerator(tree, { skipInstall: true });
    expect(read(tree, 'README.md')).toBe('# Acme\n');
    expect(read(tree, 'biome.json')).toBe('{}\n');
    expect(read(tree, 'tsconfig.base.json')).toBe('{ "compilerOptions": {} }\n');
    expect(read(tree, '.gitignore')).toContain('*.tsbuildinfo');
    // absent before: written
    expect(tree.exists('.ci/run')).toBe(true);
  });

  it('replaces create-nx-workspace’s README', async () => {
    tree.write('README.md', '# Acme\n\n✨ Your new, shiny [Nx workspace](https://nx.dev) is ready ✨.\n');
    await presetGenerator(tree, { name: 'acme', skipInstall: true });
    expect(read(tree, 'README.md')).toContain(TEST_COMMAND);
  });
});

describe('init (nx add @opkit/nx)', () => {
  it('gives an operator generated next what its lint, typecheck and test targets build on', async () => {
    const tree = createTreeWithEmptyWorkspace();
    tree.delete('tsconfig.base.json');
    // create-nx-workspace's nx.json has `lint: { cache: true }`: a default that runs nothing
    expect(readNxJson(tree)?.targetDefaults?.lint).toEqual({ cache: true });
    await initGenerator(tree, { skipInstall: true });
    await operatorGenerator(tree, { name: 'foo' });
    const project = readProjectConfiguration(tree, 'foo');
    const defaults = readJson<{ targetDefaults: Targets & Record<string, { executor?: string }> }>(
      tree,
      'nx.json',
    ).targetDefaults;
    for (const target of ['lint', 'typecheck', 'test'])
      expect(project.targets?.[target], target).toBeDefined();
    // `lint: {}` and `typecheck: {}` are whole only with the target defaults
    expect(defaults.lint?.executor).toBe('nx:run-commands');
    expect(defaults.typecheck?.options?.command).toBe('tsc -p {projectRoot}/tsconfig.json');
    expect(readNxJson(tree)?.namedInputs?.production).toBeDefined();
    const extended = readJson<{ extends: string }>(tree, `${project.root}/tsconfig.json`).extends;
    expect(tree.exists(join(project.root, extended))).toBe(true);
    expect(tree.exists('biome.json')).toBe(true);
    expect(readJson(tree, 'package.json').scripts['test:envtest']).toBe('nx run-many -t test -c envtest');
  });

  it('keeps the workspace’s own target defaults, TypeScript and Biome settings and scripts', async () => {
    const tree = createTreeWithEmptyWorkspace();
    tree.write('nx.json', JSON.stringify({ targetDefaults: { lint: { command: 'eslint .' } } }));
    tree.write('tsconfig.base.json', '{}\n');
    tree.write('biome.json', '{}\n');
    tree.write('package.json', JSON.stringify({ name: '@acme/source', scripts: { test: 'jest' } }));
    await initGenerator(tree, { skipInstall: true });
    expect(readNxJson(tree)?.targetDefaults?.lint).toEqual({ command: 'eslint .' });
    expect(readNxJson(tree)?.targetDefaults?.typecheck).toBeDefined();
    expect(read(tree, 'tsconfig.base.json')).toBe('{}\n');
    expect(read(tree, 'biome.json')).toBe('{}\n');
    expect(readJson(tree, 'package.json').scripts.test).toBe('jest');
  });

  it('adds the packages at the plugin’s versions, keeping versions the workspace has, and the projects', async () => {
    const tree = createTreeWithEmptyWorkspace();
    tree.write(
      'package.json',
      JSON.stringify({
        name: '@acme/source',
        workspaces: ['libs/*'],
        devDependencies: { typescript: '5.9.2' },
      }),
    );
    const ownBundles = '{ "name": "bundle", "targets": {} }\n';
    tree.write('bundles/project.json', ownBundles);
    await initGenerator(tree, { skipInstall: true });
    const pkg = readJson(tree, 'package.json');
    expect(pkg.workspaces).toEqual(['libs/*', 'operators/*']);
    expect(pkg.devDependencies.typescript).toBe('5.9.2');
    expect(pkg.devDependencies['@opkit/cli']).toBe(pluginVersionOf('@opkit/cli'));
    expect(pkg.devDependencies['@opkit/nx']).toBe(pluginVersionOf('@opkit/nx'));
    expect(pkg.dependencies['@opkit/controller-runtime']).toBe(pluginVersionOf('@opkit/controller-runtime'));
    expect(read(tree, 'bundles/project.json')).toBe(ownBundles);
    expect(readJson(tree, 'catalog/project.json').name).toBe('catalog');
    expect(tree.exists('catalog/templates/.gitkeep')).toBe(true);
  });
});

describe('the operator generator in a generated workspace', () => {
  it('writes config/with-certmanager, so that `deploy --cert-manager` has its overlay', async () => {
    const tree = createTree();
    tree.delete('.prettierrc');
    await presetGenerator(tree, { operator: 'db', skipInstall: true });
    const overlay = parse(read(tree, 'operators/db/config/with-certmanager/kustomization.yaml')) as {
      resources: string[];
      patches: { target: { kind: string } }[];
    };
    expect(overlay.resources).toEqual(['../default', '../certmanager']);
    expect(overlay.patches.map((p) => p.target.kind)).toEqual([
      'CustomResourceDefinition',
      'MutatingWebhookConfiguration',
      'ValidatingWebhookConfiguration',
    ]);
    expect(read(tree, 'operators/db/config/certmanager/certificate.yaml')).toContain(
      'db-operator-webhook-service.db-operator-system.svc',
    );
  });
});
