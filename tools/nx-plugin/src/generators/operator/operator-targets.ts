// The Nx targets of an operator project, the same in opkit's repository and in a generated workspace: the
// `opkit` command from node_modules/.bin (Nx puts it on the PATH of run-commands), and the test tiers.
import type { TargetConfiguration } from '@nx/devkit';

export interface OperatorTargetOptions {
  /** The OLM package, which names the operator image's layout in dist/images. */
  readonly packageName: string;
  /** In opkit's repository: run the libraries from their sources, and build the `opkit` project first. */
  readonly sourceWorkspace: boolean;
  /** A shell prefix for `run` (environment the operator reads, such as RELATED_IMAGE_* defaults). */
  readonly runPrefix?: string;
}

/**
 * The `test` target: all tiers; `-c unit` (no cluster), `-c envtest` (no root), `-c e2e` (a real node: the
 * `e2e` project, and `e2e-solo` where its files run two at a time). A CI that runs the tiers side by side splits
 * by the real node, of which a machine runs one at a time: `-c real-node` (the `e2e` tier) and
 * `-c no-real-node` (every other vitest project, kwok-only ones included).
 */
export function testTarget(sourceWorkspace: boolean): TargetConfiguration {
  // The e2e tier's cluster needs host packages and components built once: the test kit's `prepare` does both
  // (it is what `nx run cluster:prepare` runs in opkit's repository).
  const prepare = 'opkit-cluster prepare';
  return {
    executor: 'nx:run-commands',
    ...(sourceWorkspace ? { dependsOn: ['opkit:build'] } : {}),
    cache: false,
    options: { commands: [prepare, 'vitest run'], parallel: false, cwd: '{projectRoot}' },
    configurations: {
      unit: { commands: ['vitest run --project unit'] },
      envtest: { commands: ['vitest run --project envtest'] },
      e2e: { commands: [prepare, "vitest run --project 'e2e*'"] },
      'real-node': { commands: [prepare, "vitest run --project 'e2e*'"] },
      'no-real-node': { commands: ["vitest run --project '!e2e*'"] },
    },
  };
}

export function operatorTargets(o: OperatorTargetOptions): Record<string, TargetConfiguration> {
  // Outside opkit's repository the packages are used as published: their JavaScript, no source condition.
  const node = o.sourceWorkspace ? 'node --conditions=@opkit/source --import tsx' : 'node --import tsx';
  const cli = (command: string): TargetConfiguration => ({
    executor: 'nx:run-commands',
    ...(o.sourceWorkspace ? { dependsOn: ['opkit:build'] } : {}),
    cache: false,
    options: { command: `opkit ${command}`, cwd: '{projectRoot}', forwardAllArgs: true },
  });
  return {
    lint: {},
    typecheck: {},
    manifests: {
      executor: 'nx:run-commands',
      cache: false,
      options: { command: `${node} src/manifests/generate.ts`, cwd: '{projectRoot}' },
    },
    // The operator's Prometheus rules as a rule file (dist/monitoring/rules.yaml unless a path is given).
    rules: {
      executor: 'nx:run-commands',
      cache: false,
      options: { command: `${node} src/manifests/rules.ts`, cwd: '{projectRoot}', forwardAllArgs: true },
    },
    run: {
      executor: 'nx:run-commands',
      cache: false,
      continuous: true,
      options: {
        command: `${o.runPrefix ?? ''}${node} src/main.ts`,
        cwd: '{projectRoot}',
        forwardAllArgs: true,
        env: { ENABLE_WEBHOOKS: 'false' },
      },
    },
    image: cli('image build --operator .'),
    push: cli(`image push dist/images/${o.packageName}`),
    deploy: cli('deploy --operator .'),
    undeploy: cli('undeploy --operator .'),
    // The bundle of the version in package.json, with the OLM package, channels, image and replaces of its
    // `opkit` field (`bundle generate`'s defaults), as `bundle build-all` makes it, in dist/bundle (the
    // released ones live in bundles/).
    bundle: {
      ...cli('bundle generate --operator . --out dist/bundle'),
      dependsOn: [...(o.sourceWorkspace ? ['opkit:build'] : []), 'manifests'],
    },
    test: testTarget(o.sourceWorkspace),
  };
}
