import { describe, expect, it } from 'vitest';
import { opkitPrometheusVitestConfig, opkitVitestConfig, sourceConditions } from './vitest-projects.js';

describe('opkitVitestConfig', () => {
  it('resolves packages to their sources in this repository', () => {
    expect(opkitVitestConfig().resolve?.conditions).toEqual(['@opkit/source']);
  });

  it('installed (its build), resolves packages to their builds: no @opkit/source condition', () => {
    const installed = 'file:///w/node_modules/@opkit/test-cluster/dist/testing/vitest-projects.js';
    expect(sourceConditions(installed)).toEqual([]);
    expect(sourceConditions('file:///w/test/cluster/src/testing/vitest-projects.ts')).toEqual([
      '@opkit/source',
    ]);
  });
});

describe('the opt-in Prometheus suites', () => {
  const specs = ['test/prometheus/**/*.spec.ts'];
  type Project = { test?: { name?: string; include?: string[]; exclude?: string[] } };
  const projects = (config: ReturnType<typeof opkitVitestConfig>) =>
    (config.test?.projects ?? []) as Project[];

  it('are left out of every project of the default configuration', () => {
    const e2e = projects(opkitVitestConfig({ prometheusSpecs: specs })).find((p) => p.test?.name === 'e2e');
    expect(e2e?.test?.exclude).toEqual(expect.arrayContaining(specs));
    expect(e2e?.test?.include).toEqual(['test/**/*.spec.ts']);
  });

  it('run in the one project of their own configuration', () => {
    const only = projects(opkitPrometheusVitestConfig({ prometheusSpecs: specs }));
    expect(only.map((p) => [p.test?.name, p.test?.include])).toEqual([['prometheus', specs]]);
  });
});

describe('the test files that start a real node of their own', () => {
  const specs = ['test/publish.spec.ts'];
  type Project = { test?: { name?: string; include?: string[]; exclude?: string[]; globalSetup?: string[] } };
  const projects = (config: ReturnType<typeof opkitVitestConfig>) =>
    (config.test?.projects ?? []) as Project[];

  it('run in a project of their own, real-node, and not in e2e', () => {
    const all = projects(opkitVitestConfig({ e2eUsesCluster: false, realNodeSpecs: specs }));
    const byName = (name: string) => all.find((p) => p.test?.name === name)?.test;
    expect(byName('real-node')?.include).toEqual(specs);
    expect(byName('real-node')?.globalSetup).toEqual([]);
    expect(byName('e2e')?.exclude).toEqual(expect.arrayContaining(specs));
  });

  it('are refused where e2e shares the real-node cluster: a machine runs one real node', () => {
    expect(() => opkitVitestConfig({ realNodeSpecs: specs })).toThrow(
      'opkitVitestConfig: realNodeSpecs needs e2eUsesCluster: false (e2e already shares the real-node cluster, and a machine runs one real node)',
    );
  });

  it('leave no real-node project where there are none', () => {
    expect(projects(opkitVitestConfig()).map((p) => p.test?.name)).toEqual(['unit', 'e2e', 'envtest']);
  });
});

describe('e2e files two at a time on the shared cluster', () => {
  const solo = ['test/project.spec.ts'];
  type Project = {
    test?: {
      name?: string;
      include?: string[];
      exclude?: string[];
      globalSetup?: string[];
      fileParallelism?: boolean;
    };
  };
  const byName = (config: ReturnType<typeof opkitVitestConfig>, name: string) =>
    ((config.test?.projects ?? []) as Project[]).find((p) => p.test?.name === name)?.test;

  it('runs e2e in parallel and the cluster-wide files alone in e2e-solo, on the same cluster', () => {
    const config = opkitVitestConfig({ e2eFilesInParallel: true, e2eSoloSpecs: solo });
    const e2e = byName(config, 'e2e');
    const e2eSolo = byName(config, 'e2e-solo');
    expect(e2e?.fileParallelism).toBe(true);
    expect(e2e?.exclude).toEqual(expect.arrayContaining(solo));
    expect(e2eSolo?.include).toEqual(solo);
    // Vitest runs the files of projects without file parallelism one at a time, after all others.
    expect(e2eSolo?.fileParallelism).toBe(false);
    expect(e2eSolo?.globalSetup).toEqual(e2e?.globalSetup);
  });

  it('keeps e2e files one at a time unless asked, and refuses solo files without parallel ones', () => {
    expect(byName(opkitVitestConfig(), 'e2e')?.fileParallelism).toBe(false);
    expect(() => opkitVitestConfig({ e2eSoloSpecs: solo })).toThrow(
      'opkitVitestConfig: e2eSoloSpecs needs e2eFilesInParallel (without it every e2e file runs alone)',
    );
  });
});
