import { createHash } from 'node:crypto';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { wrapperModule } from './go.js';
import type { ComponentRecipe } from './recipes.js';
import { CONTAINERD_VERSION, COREDNS_VERSION } from './versions.js';

const source = (file: string) => fileURLToPath(new URL(`../node/${file}`, import.meta.url));
const contentVersion = (file: string) =>
  createHash('sha256')
    .update(readFileSync(source(file)))
    .digest('hex')
    .slice(0, 12);

/**
 * containerd 2 and its runc shim. Kubernetes 1.36 needs containerd 2 (Debian ships 1.6), so it is built from
 * its Go module. `no_btrfs` drops the btrfs snapshotter, whose C headers are not needed here; the version is
 * stamped so the node reports `containerd://<version>` as its runtime.
 */
export const containerdRecipe: ComponentRecipe = {
  name: 'containerd',
  version: CONTAINERD_VERSION,
  files: ['containerd', 'containerd-shim-runc-v2', 'ctr'],
  async build(ctx) {
    const module = 'github.com/containerd/containerd/v2';
    const commands = this.files.map((f) => `${module}/cmd/${f}`);
    await wrapperModule(ctx, module, `v${CONTAINERD_VERSION}`, commands);
    const ldflags = [
      '-s -w',
      `-X ${module}/version.Version=v${CONTAINERD_VERSION}`,
      `-X ${module}/version.Revision=v${CONTAINERD_VERSION}`,
      `-X ${module}/version.Package=github.com/containerd/containerd/v2`,
    ].join(' ');
    await ctx.go([
      'build',
      '-trimpath',
      '-tags',
      'no_btrfs',
      '-ldflags',
      ldflags,
      '-o',
      `${ctx.outDir}/`,
      ...commands,
    ]);
  },
};

/**
 * CoreDNS with the few plugins cluster DNS needs (`../node/coredns/main.go`), which builds in a fraction of
 * the time of the full plugin set with its cloud SDKs.
 */
export const corednsRecipe: ComponentRecipe = {
  name: 'coredns',
  version: `${COREDNS_VERSION}-${contentVersion('coredns/main.go')}`,
  files: ['coredns'],
  async build(ctx) {
    const module = 'github.com/coredns/coredns';
    await ctx.go(['mod', 'init', 'local/corednsbuild']);
    copyFileSync(source('coredns/main.go'), join(ctx.workDir, 'main.go'));
    await ctx.go(['mod', 'edit', `-require=${module}@v${COREDNS_VERSION}`]);
    await ctx.go(['mod', 'tidy', '-e']);
    await ctx.go([
      'build',
      '-trimpath',
      '-ldflags',
      `-s -w -X ${module}/coremain.GitCommit=v${COREDNS_VERSION}`,
      '-o',
      join(ctx.outDir, 'coredns'),
      '.',
    ]);
  },
};

/** The pod sandbox's pause program (`../node/pause/main.go`), static, for the locally built pause image. */
export const pauseRecipe: ComponentRecipe = {
  name: 'pause',
  version: contentVersion('pause/main.go'),
  files: ['pause'],
  async build(ctx) {
    await ctx.go(['mod', 'init', 'local/pause']);
    copyFileSync(source('pause/main.go'), join(ctx.workDir, 'main.go'));
    await ctx.go(['build', '-trimpath', '-ldflags', '-s -w', '-o', join(ctx.outDir, 'pause'), '.']);
  },
};

/** What a real node runs besides the kubelet and kube-proxy of the Kubernetes build. */
export const nodeRecipes: readonly ComponentRecipe[] = [containerdRecipe, corednsRecipe, pauseRecipe];
