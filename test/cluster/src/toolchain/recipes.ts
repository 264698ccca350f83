import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { wrapperModule } from './go.js';
import { nodeRecipes } from './node-recipes.js';
import {
  CRDIFY_VERSION,
  ETCD_VERSION,
  GRPC_HEALTH_PROBE_VERSION,
  KUBERNETES_VERSION,
  KWOK_VERSION,
  OLM_VERSION,
  OPM_VERSION,
  PROMETHEUS_OPERATOR_VERSION,
  PROMETHEUS_VERSION,
  PROMTOOL_VERSION,
} from './versions.js';

/** What a recipe gets to build with. */
export interface BuildContext {
  /** An empty scratch directory for the wrapper module. */
  readonly workDir: string;
  /** Where the finished binaries go; becomes the cached component directory when the build succeeds. */
  readonly outDir: string;
  /** Runs `go` with the build environment in `workDir` (or `cwd`), returning stdout. */
  go(args: readonly string[], options?: { cwd?: string; env?: Record<string, string> }): Promise<string>;
}

/** How to build one versioned component from Go modules. */
export interface ComponentRecipe {
  readonly name: string;
  readonly version: string;
  /** Files that must exist in the component directory for the cache to count as complete. */
  readonly files: readonly string[];
  build(ctx: BuildContext): Promise<void>;
}

interface GoModJson {
  Go?: string;
  Godebug?: { Key: string; Value: string }[];
  Replace?: { Old: { Path: string }; New: { Path: string } }[];
}

async function moduleInfo(ctx: BuildContext, module: string): Promise<{ GoMod: string; Dir?: string }> {
  return JSON.parse(await ctx.go(['mod', 'download', '-json', module])) as { GoMod: string; Dir?: string };
}

/**
 * kube-apiserver, kube-controller-manager, kube-scheduler and the node's kubelet and kube-proxy, all of one
 * version. `k8s.io/kubernetes` replaces its staging modules
 * with local paths, which Go ignores in a dependency, so a wrapper module maps each staging module to its
 * published `v0.<minor>.<patch>` tag. The list, the go line and the godebug settings are read from the exact
 * tag's go.mod, never hard-coded. The version ldflags make the server report its real version (OLM's
 * minKubeVersion check reads it).
 */
export const kubernetesRecipe: ComponentRecipe = {
  name: 'kubernetes',
  version: KUBERNETES_VERSION,
  files: ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kubelet', 'kube-proxy'],
  async build(ctx) {
    const version = KUBERNETES_VERSION;
    const [major, minor] = version.split('.');
    const staging = `0.${version.split('.').slice(1).join('.')}`;
    await ctx.go(['mod', 'init', 'local/kubebuild']);
    const upstream = JSON.parse(
      await ctx.go(['mod', 'edit', '-json', (await moduleInfo(ctx, `k8s.io/kubernetes@v${version}`)).GoMod]),
    ) as GoModJson;
    const edits = [`-require=k8s.io/kubernetes@v${version}`];
    if (upstream.Go) edits.push(`-go=${upstream.Go}`);
    for (const { Key, Value } of upstream.Godebug ?? []) edits.push(`-godebug=${Key}=${Value}`);
    for (const { Old, New } of upstream.Replace ?? []) {
      if (New.Path.startsWith('./staging/')) edits.push(`-replace=${Old.Path}=${Old.Path}@v${staging}`);
    }
    await ctx.go(['mod', 'edit', ...edits]);
    const commands = this.files.map((f) => `k8s.io/kubernetes/cmd/${f}`);
    writeFileSync(
      join(ctx.workDir, 'tools.go'),
      `//go:build tools\n\npackage tools\n\nimport (\n${commands.map((c) => `\t_ "${c}"\n`).join('')})\n`,
    );
    await ctx.go(['mod', 'tidy']);
    const stamp = (pkg: string, extra: string[] = []) => [
      `-X ${pkg}.gitVersion=v${version}`,
      `-X ${pkg}.gitMajor=${major}`,
      `-X ${pkg}.gitMinor=${minor}`,
      `-X ${pkg}.gitTreeState=clean`,
      ...extra,
    ];
    const ldflags = [
      '-s -w',
      ...stamp('k8s.io/component-base/version', [
        '-X k8s.io/component-base/version.buildDate=2026-01-01T00:00:00Z',
      ]),
      ...stamp('k8s.io/client-go/pkg/version'),
    ].join(' ');
    await ctx.go(['build', '-trimpath', '-ldflags', ldflags, '-o', `${ctx.outDir}/`, ...commands]);
  },
};

/** etcd: the server module root is a main package, but its go.mod has replaces, so it too needs a wrapper. */
export const etcdRecipe: ComponentRecipe = {
  name: 'etcd',
  version: ETCD_VERSION,
  files: ['etcd'],
  async build(ctx) {
    await ctx.go(['mod', 'init', 'local/etcdbuild']);
    writeFileSync(
      join(ctx.workDir, 'tools.go'),
      '//go:build tools\n\npackage tools\n\nimport _ "go.etcd.io/etcd/server/v3"\n',
    );
    await ctx.go(['get', `go.etcd.io/etcd/server/v3@v${ETCD_VERSION}`]);
    await ctx.go(['mod', 'tidy']);
    await ctx.go([
      'build',
      '-trimpath',
      '-ldflags',
      '-s -w',
      '-o',
      join(ctx.outDir, 'etcd'),
      'go.etcd.io/etcd/server/v3',
    ]);
  },
};

/**
 * kwok, which keeps fake nodes Ready and plays the kubelet for their pods. Its stages ship as YAML in the
 * module; they are copied next to the binary so starting a cluster needs no Go.
 */
export const kwokRecipe: ComponentRecipe = {
  name: 'kwok',
  version: KWOK_VERSION,
  files: ['kwok', 'node-stages.yaml', 'pod-stages.yaml'],
  async build(ctx) {
    await ctx.go(['install', `sigs.k8s.io/kwok/cmd/kwok@v${KWOK_VERSION}`], { env: { GOBIN: ctx.outDir } });
    const { Dir } = await moduleInfo(ctx, `sigs.k8s.io/kwok@v${KWOK_VERSION}`);
    if (!Dir) throw new Error(`the kwok module v${KWOK_VERSION} has no source directory in the module cache`);
    const stages = [
      'kustomize/stage/node/fast/node-initialize.yaml',
      'kustomize/stage/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml',
    ].map((f) => readFileSync(join(Dir, f), 'utf8').trim());
    writeFileSync(join(ctx.outDir, 'node-stages.yaml'), `${stages.join('\n---\n')}\n`);
    // Pods on kwok nodes (benchmarks at scale) are made Ready, completed and deleted by kwok's fast stages.
    const podStages = ['pod-ready.yaml', 'pod-complete.yaml', 'pod-delete.yaml'].map((f) =>
      readFileSync(join(Dir, 'kustomize/stage/pod/fast', f), 'utf8').trim(),
    );
    writeFileSync(join(ctx.outDir, 'pod-stages.yaml'), `${podStages.join('\n---\n')}\n`);
  },
};

export const controlPlaneRecipes: readonly ComponentRecipe[] = [etcdRecipe, kwokRecipe, kubernetesRecipe];

/**
 * opm from operator-registry. Built without cgo: render, validate and serve of file-based catalogs do not use
 * sqlite; the `containers_image_openpgp` tag avoids the gpgme C library, as upstream's Makefile does.
 */
export const opmRecipe: ComponentRecipe = {
  name: 'opm',
  version: OPM_VERSION,
  files: ['opm'],
  async build(ctx) {
    const module = 'github.com/operator-framework/operator-registry';
    await wrapperModule(ctx, module, `v${OPM_VERSION}`, [`${module}/cmd/opm`]);
    await ctx.go([
      'build',
      '-trimpath',
      '-tags',
      'json1,containers_image_openpgp',
      '-ldflags',
      `-s -w -X ${module}/cmd/opm/version.opmVersion=v${OPM_VERSION}`,
      '-o',
      join(ctx.outDir, 'opm'),
      `${module}/cmd/opm`,
    ]);
  },
};

/**
 * OLM's programs, as its image holds them: the `olm` and `catalog` operators and the `package-server`; `cpb`
 * and `copy-content`, which its bundle-unpack Jobs and content-extracting registry pods copy out of it; and
 * OLM's CRDs, which ship in the operator-framework/api module (copied next to the binaries, so starting OLM needs
 * no Go).
 */
export const olmRecipe: ComponentRecipe = {
  name: 'olm',
  version: OLM_VERSION,
  files: ['olm', 'catalog', 'package-server', 'cpb', 'copy-content', 'crds'],
  async build(ctx) {
    const module = 'github.com/operator-framework/operator-lifecycle-manager';
    const commands = ['cmd/olm', 'cmd/catalog', 'cmd/package-server', 'util/cpb', 'cmd/copy-content'].map(
      (c) => `${module}/${c}`,
    );
    await wrapperModule(ctx, module, `v${OLM_VERSION}`, commands);
    await ctx.go([
      'build',
      '-trimpath',
      '-tags',
      'json1',
      '-ldflags',
      `-s -w -X ${module}/pkg/version.OLMVersion=v${OLM_VERSION}`,
      '-o',
      `${ctx.outDir}/`,
      ...commands,
    ]);
    const api = JSON.parse(await ctx.go(['list', '-m', '-json', 'github.com/operator-framework/api'])) as {
      Dir?: string;
      Version: string;
    };
    const { Dir } = await moduleInfo(ctx, `github.com/operator-framework/api@${api.Version}`);
    if (!Dir) throw new Error('the operator-framework/api module has no source directory');
    mkdirSync(join(ctx.outDir, 'crds'));
    for (const file of readdirSync(join(Dir, 'crds')).filter((f) => f.startsWith('operators.coreos.com_'))) {
      copyFileSync(join(Dir, 'crds', file), join(ctx.outDir, 'crds', file));
    }
  },
};

/**
 * grpc_health_probe, which OLM's registry pods run as their probes; the opm image carries it, as upstream's
 * does.
 */
export const grpcHealthProbeRecipe: ComponentRecipe = moduleCommandRecipe(
  'grpc-health-probe',
  GRPC_HEALTH_PROBE_VERSION,
  'github.com/grpc-ecosystem/grpc-health-probe',
  'grpc_health_probe',
);

/**
 * crdify, the judge of CRD upgrade safety (OLM v1's preflight runs its validations).
 */
export const crdifyRecipe: ComponentRecipe = moduleCommandRecipe(
  'crdify',
  CRDIFY_VERSION,
  'sigs.k8s.io/crdify',
  'crdify',
);

/**
 * promtool, Prometheus's own judge of rule files: the operators' alert and recording rules are unit-tested with
 * its `test rules`. Only `cmd/promtool` is built, without the service-discovery plugins (Prometheus's
 * `remove_all_sd` build tag: the cloud SDKs are half of its cold build, 443 s of CPU against 218 s, and rule
 * tests discover nothing).
 */
export const promtoolRecipe: ComponentRecipe = moduleCommandRecipe(
  'promtool',
  PROMTOOL_VERSION,
  'github.com/prometheus/prometheus',
  'promtool',
  'github.com/prometheus/prometheus/cmd/promtool',
  ['remove_all_sd'],
);

/**
 * A component that is one command of a Go module without replace directives (the module root unless `command`
 * names a package inside it), built by a wrapper module that requires it, as `go install` would build it (with
 * `tags`, when given).
 */
function moduleCommandRecipe(
  name: string,
  version: string,
  module: string,
  file: string,
  command: string = module,
  tags: readonly string[] = [],
): ComponentRecipe {
  return {
    name,
    version,
    files: [file],
    async build(ctx) {
      await wrapperModule(ctx, module, `v${version}`, [command]);
      const tagFlags = tags.length > 0 ? ['-tags', tags.join(',')] : [];
      await ctx.go([
        'build',
        '-trimpath',
        ...tagFlags,
        '-ldflags',
        '-s -w',
        '-o',
        join(ctx.outDir, file),
        command,
      ]);
    },
  };
}

/** The version stamp Prometheus' own builds set, so `prometheus_build_info` and `--version` tell the truth. */
function prometheusVersionFlags(version: string): string {
  const pkg = 'github.com/prometheus/common/version';
  return `-s -w -X ${pkg}.Version=${version} -X ${pkg}.Branch=HEAD -X ${pkg}.BuildDate=20260101-00:00:00`;
}

/**
 * Prometheus' server, as `go install …/cmd/prometheus@v<version>` builds it: without the `builtinassets` tag,
 * since the web UI's assets are not in the module (the HTTP API, which tests query, needs none).
 */
export const prometheusRecipe: ComponentRecipe = {
  name: 'prometheus',
  version: PROMETHEUS_VERSION,
  files: ['prometheus'],
  async build(ctx) {
    const module = 'github.com/prometheus/prometheus';
    await wrapperModule(ctx, module, `v${PROMETHEUS_VERSION}`, [`${module}/cmd/prometheus`]);
    await ctx.go([
      'build',
      '-trimpath',
      '-ldflags',
      prometheusVersionFlags(prometheusServerVersion()),
      '-o',
      join(ctx.outDir, 'prometheus'),
      `${module}/cmd/prometheus`,
    ]);
  },
};

/** The release Prometheus' module version stands for: module v0.316.0 is Prometheus 3.16.0. */
export function prometheusServerVersion(moduleVersion: string = PROMETHEUS_VERSION): string {
  const [, minor, patch] = moduleVersion.split('.');
  return `${minor?.slice(0, 1)}.${Number(minor?.slice(1))}.${patch}`;
}

/**
 * The Prometheus Operator and the config-reloader its Prometheus pods run beside the server, and what its
 * install is made of, copied from the module so starting it needs no Go: its CRDs
 * (`example/prometheus-operator-crd`) and the operator's Deployment, ServiceAccount, ClusterRole, binding and
 * Service of its RBAC example (`example/rbac/prometheus-operator`). The module's own `replace`s point at its `pkg/apis` and `pkg/client` modules
 * of the same version, which it also requires, so the wrapper builds what upstream builds.
 */
export const prometheusOperatorRecipe: ComponentRecipe = {
  name: 'prometheus-operator',
  version: PROMETHEUS_OPERATOR_VERSION,
  files: ['operator', 'prometheus-config-reloader', 'crds', 'install'],
  async build(ctx) {
    const module = 'github.com/prometheus-operator/prometheus-operator';
    const version = `v${PROMETHEUS_OPERATOR_VERSION}`;
    const commands = ['operator', 'prometheus-config-reloader'].map((c) => `${module}/cmd/${c}`);
    await wrapperModule(ctx, module, version, commands);
    await ctx.go([
      'build',
      '-trimpath',
      '-ldflags',
      prometheusVersionFlags(PROMETHEUS_OPERATOR_VERSION),
      '-o',
      `${ctx.outDir}/`,
      ...commands,
    ]);
    const { Dir } = await moduleInfo(ctx, `${module}@${version}`);
    if (!Dir) throw new Error(`the prometheus-operator module ${version} has no source directory`);
    mkdirSync(join(ctx.outDir, 'crds'));
    const crds = join(Dir, 'example', 'prometheus-operator-crd');
    for (const file of readdirSync(crds).filter((f) => f.endsWith('.yaml'))) {
      copyFileSync(join(crds, file), join(ctx.outDir, 'crds', file));
    }
    // The operator's install as its docs lay it out (its ServiceMonitor for itself aside).
    mkdirSync(join(ctx.outDir, 'install'));
    const install = join(Dir, 'example', 'rbac', 'prometheus-operator');
    for (const file of readdirSync(install).filter(
      (f) => f.endsWith('.yaml') && !f.includes('service-monitor'),
    )) {
      copyFileSync(join(install, file), join(ctx.outDir, 'install', file));
    }
  },
};

/** What the opt-in Prometheus of a cluster with a real node runs: the operator, its reloader, Prometheus. */
export const prometheusRecipes: readonly ComponentRecipe[] = [prometheusOperatorRecipe, prometheusRecipe];

/** What OLM needs on a cluster with a real node: its operators, and what its opm and util images hold. */
export const olmRecipes: readonly ComponentRecipe[] = [olmRecipe, opmRecipe, grpcHealthProbeRecipe];

/** Everything the test world builds from Go modules: the control plane, the node, opm, OLM, crdify and promtool. */
export const testWorldRecipes: readonly ComponentRecipe[] = [
  ...controlPlaneRecipes,
  ...nodeRecipes,
  ...olmRecipes,
  crdifyRecipe,
  promtoolRecipe,
];
