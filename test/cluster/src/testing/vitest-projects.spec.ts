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
