// Imported by the packages' vitest.config.ts as `@opkit/test-cluster/vitest-projects`. Vite's config loader
// leaves a package import to Node, without the `@opkit/source` condition, so the package's `vitest-projects.js`
// loads this TypeScript file in the workspace (Node strips its types: Node 22.18 or later, as the workspace's
// own Node 24 is) and its build when installed: keep its imports to packages and `node:` modules, and its
// TypeScript to syntax that erases.
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configDefaults, type ViteUserConfig } from 'vitest/config';

// The setups beside this module: `.ts` sources in the workspace, `.js` in the installed build.
const extension = extname(fileURLToPath(import.meta.url));

/**
 * The resolve conditions of the configuration `moduleUrl` (this module) makes: `@opkit/source` in this repository,
 * where it is the TypeScript source, so packages resolve to their sources; none once installed (the build, as
 * `vitest-projects.js` loads it), so the packages are tested as they run, from their builds.
 */
export function sourceConditions(moduleUrl: string): string[] {
  return extname(fileURLToPath(moduleUrl)) === '.ts' ? ['@opkit/source'] : [];
}
/**
 * The resolve settings of both configurations: packages as TypeScript sources in this repository (the global
 * setup, which starts the cluster, runs in the main process's own environment, so it gets them too); none
 * once installed.
 */
function sourceResolution(): Pick<ViteUserConfig, 'resolve' | 'ssr' | 'environments'> {
  const conditions = sourceConditions(import.meta.url);
  if (conditions.length === 0) return {};
  return {
    resolve: { conditions },
    ssr: { resolve: { conditions, externalConditions: conditions } },
    environments: { __vitest__: { resolve: { conditions, externalConditions: conditions } } },
  };
}

const setupFile = (name: string) => fileURLToPath(new URL(`./${name}${extension}`, import.meta.url));
const globalSetup = setupFile('global-setup');
const buildPackages = setupFile('build-packages');
const kwokNodesSetup = setupFile('kwok-nodes-setup');
const controlPlaneSetup = setupFile('control-plane-setup');
const prometheusSetup = setupFile('prometheus-setup');
const envtestSetup = fileURLToPath(new URL(`../envtest/global-setup${extension}`, import.meta.url));

/** The `envtest` project's test files: etcd and kube-apiserver only, no root. */
const ENVTEST_SPECS = 'test/envtest/**/*.spec.ts';

/**
 * The kit's vitest global setups, as file paths for a `globalSetup` list, for configurations that do not use
 * `opkitVitestConfig`: `buildPackages` runs the workspace's `build` targets, `controlPlane` shares one
 * kwok-only control plane (no nodes) across the run.
 */
export const opkitGlobalSetups = { buildPackages, controlPlane: controlPlaneSetup } as const;

/**
 * The vitest configuration every package shares: a `unit` project for `src/**\/*.spec.ts` (fast, no cluster),
 * an `envtest` project for `test/envtest/**\/*.spec.ts` that shares one test environment (etcd and
 * kube-apiserver only, started as any user in seconds; `envtest()` of `@opkit/test-cluster/envtest` in the
 * files) and an `e2e` project for the other `test/**\/*.spec.ts` that shares one local control plane across
 * its files.
 * In this repository its packages resolve to their TypeScript sources through the `@opkit/source` condition;
 * installed, packages resolve to their builds.
 *
 * `e2eRunsCli`: the e2e tests run the `opkit` command as users run it, from its build, so a bare `vitest run`
 * builds it first (under Nx the test target's `dependsOn: ["opkit:build"]` has).
 *
 * `kwokSpecs`: test files whose pods only need to become Ready run in a third project, `kwok`, against a
 * kwok-only control plane with kwok nodes (no real node), and not in `e2e`.
 *
 * `e2eFilesInParallel`: the `e2e` files run two at a time on the shared cluster (the `maxWorkers` below), for
 * packages whose files each work in namespaces of their own (an API server they restart is a replica of their
 * own). Such files mostly wait on pods, so two at a time take little more than the longer of them. The files
 * of `e2eSoloSpecs`, which act cluster-wide (an operator watching every namespace, CRDs installed and removed),
 * run in a project of their own, `e2e-solo`, one at a time after the others, on the same cluster.
 *
 * `realNodeSpecs`, where `e2e` shares no cluster (`e2eUsesCluster: false`): the test files that start a cluster
 * with a real node of their own (`startCluster()` without `realNode: false`) run in a project of their own,
 * `real-node`, and not in `e2e`. Only one real node runs on a machine, so `npm test` runs the projects that
 * need one (`real-node`, and `e2e` where it shares the real-node cluster) one after another, and every other
 * project beside them.
 *
 * `prometheusSpecs`: test files that need a Prometheus on the real node: left out of `e2e` (and of every
 * project here), they run only under {@link opkitPrometheusVitestConfig}, an opt-in configuration of their own.
 */
export function opkitVitestConfig(
  options: {
    e2eUsesCluster?: boolean;
    e2eRunsCli?: boolean;
    e2eFilesInParallel?: boolean;
    e2eSoloSpecs?: readonly string[];
    kwokSpecs?: readonly string[];
    realNodeSpecs?: readonly string[];
    prometheusSpecs?: readonly string[];
  } = {},
): ViteUserConfig {
  const kwokSpecs = [...(options.kwokSpecs ?? [])];
  const realNodeSpecs = [...(options.realNodeSpecs ?? [])];
  const e2eUsesCluster = options.e2eUsesCluster ?? true;
  const soloSpecs = [...(options.e2eSoloSpecs ?? [])];
  if (soloSpecs.length > 0 && !options.e2eFilesInParallel) {
    throw new Error(
      'opkitVitestConfig: e2eSoloSpecs needs e2eFilesInParallel (without it every e2e file runs alone)',
    );
  }
  if (e2eUsesCluster && realNodeSpecs.length > 0) {
    // The shared cluster has the machine's one real node for the whole run: another would be refused.
    throw new Error(
      'opkitVitestConfig: realNodeSpecs needs e2eUsesCluster: false (e2e already shares the real-node cluster, and a machine runs one real node)',
    );
  }
  const e2eSetups = [
    ...(options.e2eRunsCli ? [buildPackages] : []),
    ...(e2eUsesCluster ? [globalSetup] : []),
  ];
  const clusterTest = { testTimeout: 180_000, hookTimeout: 300_000, fileParallelism: false };
  return {
    ...sourceResolution(),
    test: {
      // Unit files two at a time, whatever the core count (vitest's default on 2 cores is one). The files of
      // the cluster projects (`fileParallelism: false`) still run one at a time, all of them in one sequence:
      // vitest groups every such file of every project together.
      maxWorkers: 2,
      projects: [
        {
          extends: true,
          // Seeded property tests of a few thousand cases take 2–4 s alone and twice that beside a cluster
          // suite on two cores: a timeout there says the machine was busy, not that the code is wrong.
          test: { name: 'unit', include: ['src/**/*.spec.ts'], testTimeout: 20_000 },
        },
        {
          extends: true,
          test: {
            name: 'e2e',
            include: ['test/**/*.spec.ts'],
            exclude: [
              ...configDefaults.exclude,
              ENVTEST_SPECS,
              ...kwokSpecs,
              ...realNodeSpecs,
              ...soloSpecs,
              ...(options.prometheusSpecs ?? []),
            ],
            globalSetup: e2eSetups,
            ...clusterTest,
            ...(options.e2eFilesInParallel ? { fileParallelism: true } : {}),
          },
        },
        ...(soloSpecs.length > 0
          ? [
              {
                extends: true as const,
                // Vitest runs the files of projects without file parallelism after all others, one at a time.
                test: { name: 'e2e-solo', include: soloSpecs, globalSetup: e2eSetups, ...clusterTest },
              },
            ]
          : []),
        {
          extends: true,
          test: {
            name: 'envtest',
            include: [ENVTEST_SPECS],
            globalSetup: [envtestSetup],
            testTimeout: 60_000,
            hookTimeout: 120_000,
            fileParallelism: false,
          },
        },
        ...(kwokSpecs.length > 0
          ? [
              {
                extends: true as const,
                test: { name: 'kwok', include: kwokSpecs, globalSetup: [kwokNodesSetup], ...clusterTest },
              },
            ]
          : []),
        ...(realNodeSpecs.length > 0
          ? [
              {
                extends: true as const,
                test: { name: 'real-node', include: realNodeSpecs, globalSetup: e2eSetups, ...clusterTest },
              },
            ]
          : []),
      ],
    },
  };
}

/**
 * The opt-in configuration of test files that need Prometheus (`vitest run --config <its file>`): one project,
 * `prometheus`, whose cluster has a real node and the Prometheus Operator with one Prometheus (`startCluster`'s
 * `prometheus: true`). Pass the same files as `opkitVitestConfig`'s `prometheusSpecs`, so the default run
 * leaves them out.
 */
export function opkitPrometheusVitestConfig(options: {
  prometheusSpecs: readonly string[];
  e2eRunsCli?: boolean;
}): ViteUserConfig {
  return {
    ...sourceResolution(),
    test: {
      projects: [
        {
          extends: true,
          test: {
            name: 'prometheus',
            include: [...options.prometheusSpecs],
            globalSetup: [...(options.e2eRunsCli ? [buildPackages] : []), prometheusSetup],
            testTimeout: 300_000,
            hookTimeout: 300_000,
            fileParallelism: false,
          },
        },
      ],
    },
  };
}
