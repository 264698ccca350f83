import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readJson, type Tree } from '@nx/devkit';
import { createTreeWithEmptyWorkspace } from '@nx/devkit/testing';
import { describe, expect, it } from 'vitest';
import { operatorGenerator } from './operator.js';
import { operatorTargets } from './operator-targets.js';

// The operator projects' targets: the same shape in this repository (memcached, redis, a new one) and in a
// generated workspace, differing only in what this repository builds from source.

const repo = join(import.meta.dirname, '..', '..', '..', '..', '..');

/** A workspace shaped like this repository: the `opkit` project and the packages an operator depends on. */
function sourceWorkspace(): Tree {
  const tree = createTreeWithEmptyWorkspace();
  tree.write(
    'package.json',
    JSON.stringify({ name: '@opkit/source', workspaces: ['libs/*', 'tools/*', 'test/*'] }),
  );
  for (const [root, name] of [
    ['tools/opkit', '@opkit/cli'],
    ['libs/controller-runtime', '@opkit/controller-runtime'],
    ['libs/controller-tools', '@opkit/controller-tools'],
    ['test/cluster', '@opkit/test-cluster'],
  ] as const) {
    tree.write(
      `${root}/package.json`,
      JSON.stringify({
        name,
        version: '0.1.0',
        nx: { name: root === 'tools/opkit' ? 'opkit' : root.split('/')[1] },
      }),
    );
  }
  return tree;
}

describe('operator targets', () => {
  it('in this repository build the opkit command first and resolve the libraries to their sources', async () => {
    const tree = sourceWorkspace();
    await operatorGenerator(tree, { name: 'db' });
    const pkg = readJson(tree, 'operators/db/package.json');
    expect(pkg.dependencies['@opkit/controller-runtime']).toBe('*');
    expect(pkg.devDependencies['@opkit/test-cluster']).toBe('*');
    expect(pkg.nx.targets.deploy.dependsOn).toEqual(['opkit:build']);
    expect(pkg.nx.targets.deploy.options.command).toBe('opkit deploy --operator .');
    // package, version, channels, image and replaces: `bundle generate` reads them from package.json
    expect(pkg.nx.targets.bundle.options.command).toBe(
      'opkit bundle generate --operator . --out dist/bundle',
    );
    expect(pkg.nx.targets.manifests.options.command).toBe(
      'node --conditions=@opkit/source --import tsx src/manifests/generate.ts',
    );
    expect(pkg.nx.targets.rules.options.command).toBe(
      'node --conditions=@opkit/source --import tsx src/manifests/rules.ts',
    );
  });

  it('run each test tier by configuration; e2e and the plain test prepare the cluster first', () => {
    const { test } = operatorTargets({ packageName: 'db-operator', sourceWorkspace: false });
    expect(test?.options.commands).toEqual(['opkit-cluster prepare', 'vitest run']);
    expect(test?.configurations).toEqual({
      unit: { commands: ['vitest run --project unit'] },
      envtest: { commands: ['vitest run --project envtest'] },
      e2e: { commands: ['opkit-cluster prepare', "vitest run --project 'e2e*'"] },
      'real-node': { commands: ['opkit-cluster prepare', "vitest run --project 'e2e*'"] },
      'no-real-node': { commands: ["vitest run --project '!e2e*'"] },
    });
    expect(test?.dependsOn).toBeUndefined();
  });

  it('are memcached’s and redis’s too (their own run command aside)', () => {
    for (const dir of ['operators/memcached', 'operators/redis']) {
      const pkg = JSON.parse(readFileSync(join(repo, dir, 'package.json'), 'utf8'));
      const expected = operatorTargets({ packageName: pkg.opkit.package, sourceWorkspace: true });
      for (const name of [
        'lint',
        'typecheck',
        'manifests',
        'rules',
        'image',
        'push',
        'deploy',
        'undeploy',
        'bundle',
        'test',
      ]) {
        const target = pkg.nx.targets[name];
        // A configuration of its own for a vitest project of its own (Memcached's `kwok`) is the operator's,
        // and so is the components' `prepare` that project's cluster adds to the tiers without a real node.
        if (name === 'test' && target.configurations.kwok !== undefined) {
          delete target.configurations.kwok;
          const withoutNode = target.configurations['no-real-node'];
          withoutNode.commands = withoutNode.commands.filter((c: string) => c !== 'opkit-cluster prepare');
        }
        expect(target, `${dir} ${name}`).toEqual(expected[name]);
      }
    }
  });
});
