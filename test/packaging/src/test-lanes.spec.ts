import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type LanePlan,
  laneProblems,
  readLanePlan,
  realNodeHelpers,
  realNodeStarts,
  selects,
  vitestFilters,
} from './test-lanes.js';
import { findWorkspaceRoot, workspacePackages } from './workspace.js';

describe('the lanes of npm test', () => {
  it('run every test file that needs the real node in the node lane, and no other file of a split project there', async () => {
    const root = findWorkspaceRoot();
    const problems = await laneProblems(root, workspacePackages(root), await readLanePlan(root));
    expect(problems.map((p) => `${p.file}: ${p.problem}`)).toEqual([]);
  });
});

describe('a test file placed in the wrong lane', () => {
  // A package of its own outside the workspace: a CLI whose `publish` test starts a cluster with OLM on the
  // real node, and whose `deploy` test a kwok-only one.
  const root = mkdtempSync(join(tmpdir(), 'opkit-lanes-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  const plan: LanePlan = {
    realNodeSuites: ['cli:test:real-node'],
    noRealNodeSuites: ['cli:test:no-real-node'],
  };
  const project = (name: string, include: string[], exclude: string[] = []) =>
    `{ test: { name: '${name}', include: ${JSON.stringify(include)}, exclude: ${JSON.stringify(exclude)} } }`;
  let count = 0;
  /** The package, in a folder of its own (a configuration module is loaded once), with `realNode` as its real-node files. */
  const placed = async (realNode: string[]) => {
    const dir = `cli-${++count}`;
    write(`${dir}/test/publish.spec.ts`, 'cluster = await startCluster({ olm: true });\n');
    write(`${dir}/test/deploy.spec.ts`, 'cluster = await startCluster({ realNode: false, nodes: 1 });\n');
    write(
      `${dir}/package.json`,
      JSON.stringify({
        name: '@example/cli',
        nx: {
          name: 'cli',
          targets: {
            test: {
              options: { command: 'vitest run' },
              configurations: {
                'real-node': { command: 'vitest run --project real-node' },
                'no-real-node': { command: "vitest run --project '!real-node'" },
              },
            },
          },
        },
      }),
    );
    const projects = [project('e2e', ['test/**/*.spec.ts'], realNode), project('real-node', realNode)];
    write(`${dir}/vitest.config.ts`, `export default { test: { projects: [${projects.join(', ')}] } };\n`);
    const problems = await laneProblems(root, [{ name: '@example/cli', dir, exports: undefined }], plan);
    return problems.map((p) => ({ ...p, file: p.file.slice(dir.length + 1) }));
  };

  it('is named when it starts a real node in the other lane', async () => {
    const problems = await placed([]);
    expect(problems).toEqual([
      {
        file: 'test/publish.spec.ts',
        problem:
          "needs the real node (it calls startCluster({ olm: true })), but its vitest project 'e2e' runs in the other lane, beside the real-node one",
      },
    ]);
  });

  it('is named when it starts no real node but waits for the node lane', async () => {
    const problems = await placed(['test/publish.spec.ts', 'test/deploy.spec.ts']);
    expect(problems.map((p) => p.file)).toEqual(['test/deploy.spec.ts']);
  });

  it('passes once each file is where it belongs', async () => {
    expect(await placed(['test/publish.spec.ts'])).toEqual([]);
  });
});

describe('a cluster with a real node', () => {
  it('is started by startCluster without realNode: false', () => {
    expect(realNodeStarts('await startCluster();')).toEqual(['startCluster()']);
    expect(realNodeStarts('startCluster({\n  olm: true,\n  onProgress: (l) => log(l),\n})')).toEqual([
      'startCluster({ olm: true, onProgress: (l) => log(l), })',
    ]);
    expect(
      realNodeStarts('const realNode = env !== "0";\nstartCluster({ realNode, nodes: 0 })'),
    ).toHaveLength(1);
  });

  it('is not started by a kwok-only cluster, a comment or the function itself', () => {
    expect(realNodeStarts('startCluster({ realNode: false, nodes: 1, tempDir: scratch })')).toEqual([]);
    expect(realNodeStarts('// `startCluster()` starts a real node\n/* startCluster() */')).toEqual([]);
    expect(realNodeStarts('export async function startCluster(options = {}) {}')).toEqual([]);
  });
});

describe("the test kit's helpers that need the real node", () => {
  it('are found where the code calls them', () => {
    const deployed = 'await deployOperator({ operatorDir, kubeconfig: inject(`opkitKubeconfig`) });';
    expect(realNodeHelpers(deployed)).toEqual(['deployOperator']);
    expect(realNodeHelpers('const processes = podProcesses(pod.metadata.uid);')).toEqual(['podProcesses']);
    expect(realNodeHelpers('const kubeconfig = inject("opkitKubeconfig");')).toEqual([]);
    expect(realNodeHelpers('// deployOperator() needs the real node')).toEqual([]);
  });
});

describe("vitest's --project filters", () => {
  it('are read from the command line that runs vitest, and none from any other', () => {
    expect(vitestFilters("vitest run --project '!e2e'")).toEqual(['!e2e']);
    expect(vitestFilters('vitest run --project unit --project=kwok')).toEqual(['unit', 'kwok']);
    expect(vitestFilters('vitest run')).toEqual([]);
    expect(vitestFilters('opkit-cluster prepare')).toBeUndefined();
  });

  it('select projects by name, all of them when there is none, all but one after !', () => {
    expect(['unit', 'e2e', 'kwok', 'real-node'].filter((name) => selects(['!real-node'], name))).toEqual([
      'unit',
      'e2e',
      'kwok',
    ]);
    expect(selects([], 'e2e')).toBe(true);
    expect(selects(['e2e'], 'e2e-prometheus')).toBe(false);
    expect(selects(['e2e*'], 'e2e-prometheus')).toBe(true);
  });
});
