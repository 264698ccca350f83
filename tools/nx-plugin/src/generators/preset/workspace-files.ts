// The root files of a new opkit workspace, as the preset writes them.

export interface WorkspaceFile {
  readonly text: string;
  readonly executable?: boolean;
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** The command CI runs, and the README names: lint, type checks and the unit tier (no cluster, no root). */
export const TEST_COMMAND = 'npm ci && npm test';

/** The root package.json's scripts: the README's test command, and the tiers that need more. */
export const TEST_SCRIPTS: Readonly<Record<string, string>> = {
  test: 'nx run-many -t lint typecheck test -c unit',
  'test:envtest': 'nx run-many -t test -c envtest',
  'test:e2e': 'nx run-many -t test -c e2e',
};

/** nx.json's settings: the targets every project shares, and the @opkit/nx generators' defaults. */
export function nxJsonSettings(domain: string): Record<string, unknown> {
  return {
    $schema: './node_modules/nx/schemas/nx-schema.json',
    neverConnectToCloud: true,
    namedInputs: {
      default: ['{projectRoot}/**/*', 'sharedGlobals'],
      production: ['default', '!{projectRoot}/**/*.spec.ts', '!{projectRoot}/vitest.config.ts'],
      sharedGlobals: ['{workspaceRoot}/tsconfig.base.json', '{workspaceRoot}/biome.json'],
    },
    targetDefaults: {
      lint: {
        executor: 'nx:run-commands',
        options: { command: 'biome check {projectRoot}', cwd: '{workspaceRoot}' },
        inputs: ['default'],
        cache: true,
      },
      typecheck: {
        executor: 'nx:run-commands',
        options: { command: 'tsc -p {projectRoot}/tsconfig.json', cwd: '{workspaceRoot}' },
        inputs: ['default', '^production'],
        cache: true,
      },
      test: { inputs: ['default', '^production'], cache: false },
    },
    generators: {
      '@opkit/nx:operator': { directory: 'operators', domain },
    },
  };
}

/**
 * Whether a root file is still the one create-nx-workspace starts every workspace with (its README and
 * .gitignore): the preset replaces those, and keeps any other existing file.
 */
export function isNxDefault(path: string, text: string): boolean {
  if (path === 'README.md') return text.includes('Your new, shiny [Nx workspace]');
  if (path === '.gitignore')
    return text.startsWith(
      '# See https://docs.github.com/en/get-started/getting-started-with-git/ignoring-files',
    );
  return false;
}

type Settings = Record<string, unknown>;

/**
 * Adds the settings the operator projects rely on to nx.json: the `lint`, `typecheck` and `test` target
 * defaults (an operator's targets name them and nothing else) and the named inputs they use. A setting the
 * workspace has already is kept; a target default of its own that runs nothing (Nx's `lint: { cache: true }`)
 * gets ours underneath.
 */
export function mergeNxJsonSettings(nxJson: Settings, domain: string): Settings {
  const ours = nxJsonSettings(domain);
  const theirs = (key: string) => (nxJson[key] ?? {}) as Settings;
  const targetDefaults: Settings = { ...theirs('targetDefaults') };
  for (const [target, value] of Object.entries(ours.targetDefaults as Settings)) {
    const own = targetDefaults[target] as Settings | undefined;
    targetDefaults[target] =
      own && ('executor' in own || 'command' in own) ? own : { ...(value as Settings), ...own };
  }
  return {
    ...ours,
    ...nxJson,
    namedInputs: { ...(ours.namedInputs as Settings), ...theirs('namedInputs') },
    targetDefaults,
    generators: { ...(ours.generators as Settings), ...theirs('generators') },
  };
}

export function workspaceFiles(o: {
  readonly name: string;
  readonly domain: string;
}): Record<string, WorkspaceFile> {
  return {
    'tsconfig.base.json': {
      text: json({
        compilerOptions: {
          isolatedModules: true,
          lib: ['es2023'],
          module: 'nodenext',
          moduleResolution: 'nodenext',
          noEmit: true,
          noFallthroughCasesInSwitch: true,
          noImplicitOverride: true,
          noImplicitReturns: true,
          noUnusedLocals: true,
          skipLibCheck: true,
          strict: true,
          target: 'es2023',
          types: ['node'],
        },
      }),
    },
    'biome.json': {
      text: json({
        $schema: './node_modules/@biomejs/biome/configuration_schema.json',
        vcs: { enabled: true, clientKind: 'git', useIgnoreFile: true },
        files: { includes: ['**', '!**/dist', '!**/node_modules', '!bundles', '!catalog'] },
        formatter: { enabled: true, indentStyle: 'space', indentWidth: 2, lineWidth: 110 },
        javascript: { formatter: { quoteStyle: 'single', trailingCommas: 'all', semicolons: 'always' } },
        linter: { enabled: true, rules: { preset: 'recommended', suspicious: { noExplicitAny: 'error' } } },
      }),
    },
    '.gitignore': {
      text: [
        'node_modules/',
        'dist/',
        'coverage/',
        '*.tsbuildinfo',
        '.nx/cache',
        '.nx/workspace-data',
        '',
      ].join('\n'),
    },
    '.ci/run': {
      executable: true,
      text: `#!/usr/bin/env bash
# CI entry point: a fresh clone, no cluster. Runs exactly the README's test command.
set -euo pipefail
cd "$(dirname "$0")/.."
export NX_DAEMON=false NX_NO_CLOUD=true NX_TUI=false NX_INTERACTIVE=false
${TEST_COMMAND}
`,
    },
    'README.md': { text: readme(o.name, o.domain) },
  };
}

function readme(name: string, domain: string): string {
  return `# ${name}

Kubernetes operators in TypeScript, built with [opkit](https://github.com/opkit/opkit) and shipped through the
Operator Lifecycle Manager (OLM). An Nx workspace: each operator is a project in \`operators/\`.

## Test

\`\`\`sh
${TEST_COMMAND}
\`\`\`

runs lint, the type checks and the unit tests of every project (\`.ci/run\` runs exactly this). The tests come
in three tiers, each a configuration of a project's \`test\` target:

| Tier | Command | Needs |
| --- | --- | --- |
| unit | \`npx nx run-many -t test -c unit\` | nothing: no cluster |
| envtest | \`npm run test:envtest\` | etcd and kube-apiserver, no root: built once from their Go modules (Go ≥ 1.26) into \`~/.cache/opkit\`, or reused from there |
| e2e | \`npm run test:e2e\` | root on a Debian host: \`opkit-cluster prepare\` (run first by the target) installs the host packages with apt-get and builds a cluster with a real node (kubelet, containerd) once, with Go ≥ 1.26 too |

\`npx nx run <operator>:test\` runs all three tiers of one operator.

## Write an operator

\`\`\`sh
npx nx g @opkit/nx:operator <name>                                   # operators/<name>
npx nx g @opkit/nx:api <group>.${domain}/v1alpha1/<Kind> --project <name>
npx nx g @opkit/nx:webhook --project <name> --kind <Kind>
npm install                                                          # a new operator joins the lock file
\`\`\`

## Run and deploy

\`\`\`sh
npx nx run <name>:run                 # against the current kubeconfig's cluster
sudo npx opkit-cluster up             # a local cluster with a real node and an image registry; prints its kubeconfig
export KUBECONFIG=<kubeconfig>        # the path it printed
npx nx run <name>:deploy              # on that cluster: builds the image, pushes it to its registry, deploys
\`\`\`

## Ship through OLM

\`\`\`sh
npx nx run bundle:build               # every operator's bundle in bundles/<package>/<version>/, validated and imaged
npx nx run catalog:build              # catalog/templates/*.yaml rendered to the file-based catalog in catalog/configs/
\`\`\`
`;
}
