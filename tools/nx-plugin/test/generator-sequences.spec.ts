// The api, version and webhook generators in random orders, on real files: an operator once, then a drawn
// sequence of generator calls, and after every call that changed files the project's own checks — lint
// (Biome), type check (one TypeScript program, reused from step to step), its unit tests (vitest --project
// unit, with its own config) and `opkit bundle generate` over its config/manifests (kustomize included).
// A call changes files, says in one line that nothing changed, or refuses in one line; which one is predicted
// from a model of the project's kinds. A fixed seed samples a few sequences (OPKIT_PROPERTY_SEED,
// OPKIT_PROPERTY_CASES for more; OPKIT_TIMING=1 prints each step's and check's time); a failure names the
// seed and the sequence as `nx g` commands. Prefixes checked once are not checked again.
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type GeneratorCallback, logger, type Tree } from '@nx/devkit';
import fc from 'fast-check';
// Nx internals, as `nx g` uses them: @nx/devkit's public API has no tree over the files on disk (only the in-memory
// testing ones), no way to write a tree's changes to disk, and no reset of the per-process file listing.
import { FsTree, flushChanges } from 'nx/src/generators/tree.js';
import { resetWorkspaceContext } from 'nx/src/utils/workspace-context.js';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { apiGenerator } from '../src/generators/api/api.js';
import { operatorGenerator } from '../src/generators/operator/operator.js';
import { versionGenerator } from '../src/generators/version/version.js';
import { webhookGenerator } from '../src/generators/webhook/webhook.js';

const exec = promisify(execFile);
const repository = join(import.meta.dirname, '..', '..', '..');
const SEED = Number(process.env.OPKIT_PROPERTY_SEED ?? 20261123);
const CASES = Number(process.env.OPKIT_PROPERTY_CASES ?? 3);
const PROJECT = 'shop';
const GROUP = 'shop.example.com';

type Step =
  | { readonly generator: 'api'; readonly kind: string; readonly version: string }
  | { readonly generator: 'version'; readonly kind: string; readonly version: string }
  | {
      readonly generator: 'webhook';
      readonly kind: string;
      readonly defaulting: boolean;
      readonly validation: boolean;
      readonly conversion: boolean;
    };

/** The step as the command an author would type. */
function command(step: Step): string {
  const target = `--project ${PROJECT} --kind ${step.kind}`;
  switch (step.generator) {
    case 'api':
      return `nx g @opkit/nx:api ${GROUP}/${step.version}/${step.kind} --project ${PROJECT}`;
    case 'version':
      return `nx g @opkit/nx:version ${step.version} ${target}`;
    case 'webhook':
      return `nx g @opkit/nx:webhook ${target} --defaulting=${step.defaulting} --validation=${step.validation}${step.conversion ? ' --conversion' : ''}`;
  }
}

/** What the project has of a kind, as the model predicts each generator's outcome from. */
interface KindModel {
  versions: string[];
  defaulting: boolean;
  validation: boolean;
}
type Outcome = 'changed' | 'unchanged' | 'refused';

function predict(model: Map<string, KindModel>, step: Step): Outcome {
  const kind = model.get(step.kind);
  switch (step.generator) {
    case 'api':
      if (!kind) {
        model.set(step.kind, { versions: [step.version], defaulting: false, validation: false });
        return 'changed';
      }
      return kind.versions.includes(step.version) ? 'unchanged' : 'refused';
    case 'version':
      if (!kind) return 'refused';
      if (kind.versions.includes(step.version)) return 'unchanged';
      kind.versions.push(step.version);
      return 'changed';
    case 'webhook': {
      if (!kind) return 'refused';
      if (step.conversion && kind.versions.length < 2) return 'refused';
      const defaulting = step.defaulting && !kind.defaulting;
      const validation = step.validation && !kind.validation;
      kind.defaulting ||= defaulting;
      kind.validation ||= validation;
      return defaulting || validation ? 'changed' : 'unchanged';
    }
  }
}

const kindArb = fc.constantFrom('Widget', 'GadgetSet');
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    generator: fc.constant('api' as const),
    kind: kindArb,
    version: fc.constantFrom('v1alpha1', 'v1'),
  }),
  fc.record({
    generator: fc.constant('version' as const),
    kind: kindArb,
    version: fc.constantFrom('v1alpha1', 'v1beta1', 'v1'),
  }),
  fc
    .record({
      generator: fc.constant('webhook' as const),
      kind: kindArb,
      defaulting: fc.boolean(),
      validation: fc.boolean(),
      conversion: fc.boolean(),
    })
    .filter((w) => w.defaulting || w.validation || w.conversion),
);
/** An api call first (the others need a kind), then two or three calls of any generator. */
const sequenceArb = fc
  .tuple(
    fc.record({ generator: fc.constant('api' as const), kind: kindArb, version: fc.constant('v1alpha1') }),
    fc.array(stepArb, { minLength: 2, maxLength: 3 }),
  )
  .map(([first, rest]): Step[] => [first, ...rest]);

/**
 * The first sequence, always: the README's order reversed (version before webhook), which once left an
 * empty webhook test, a config/webhook listing a file never written, and a webhook generator refusing.
 */
const README_REVERSED: Step[] = [
  { generator: 'api', kind: 'Widget', version: 'v1alpha1' },
  { generator: 'version', kind: 'Widget', version: 'v1beta1' },
  { generator: 'webhook', kind: 'Widget', defaulting: true, validation: true, conversion: false },
];

let workspace = '';
const projectRoot = () => join(workspace, 'operators', PROJECT);
/** The operator as generated, before the sequence: each sequence starts from a copy. */
let baseline = '';
/** Copies of the project after each checked prefix of a sequence, by the prefix's JSON. */
let states = '';
const checked = new Map<string, string>();

/** Runs a generator on the workspace's files as `nx g` does: on a tree, flushed to disk, then its callback. */
async function generate(run: (tree: Tree) => Promise<GeneratorCallback>): Promise<{ said: string[] }> {
  const said: string[] = [];
  const warn = logger.warn;
  const info = logger.info;
  logger.warn = (message: unknown) => said.push(String(message));
  logger.info = () => {};
  try {
    // Nx lists a workspace's files once per process; each `nx g` is a new one.
    resetWorkspaceContext();
    const tree = new FsTree(workspace, false);
    const callback = await run(tree);
    flushChanges(workspace, tree.listChanges());
    await timed('callback', callback);
    return { said };
  } finally {
    logger.warn = warn;
    logger.info = info;
  }
}

function apply(step: Step): Promise<{ said: string[] }> {
  return generate((tree) => {
    switch (step.generator) {
      case 'api':
        return apiGenerator(tree, { api: `${GROUP}/${step.version}/${step.kind}`, project: PROJECT });
      case 'version':
        return versionGenerator(tree, { version: step.version, project: PROJECT, kind: step.kind });
      case 'webhook': {
        const { defaulting, validation, conversion } = step;
        return webhookGenerator(tree, {
          project: PROJECT,
          kind: step.kind,
          defaulting,
          validation,
          conversion,
        });
      }
    }
  });
}

/** Every file of the project with its content. */
function snapshot(): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path, `${prefix}${entry.name}/`);
      else files.set(`${prefix}${entry.name}`, readFileSync(path, 'utf8'));
    }
  };
  walk(projectRoot(), '');
  return files;
}

async function run(file: string, args: string[], cwd: string): Promise<void> {
  try {
    await exec(file, args, {
      cwd,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', NX_TASK_TARGET_PROJECT: undefined },
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`${[file, ...args].join(' ')} failed:\n${stdout}\n${stderr}`.slice(-8_000));
  }
}

/**
 * The type check of the project's files, as `tsc -p` of its tsconfig.json does it, in one builder program
 * that the next step's reuses: files that did not change (the workspace libraries' sources above all) are
 * neither parsed nor checked again. The libraries are their own projects' to check.
 */
let builder: ts.SemanticDiagnosticsBuilderProgram | undefined;
function typeCheck(): void {
  const config = ts.getParsedCommandLineOfConfigFile(join(projectRoot(), 'tsconfig.json'), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  });
  if (!config) throw new Error('tsconfig.json: unreadable');
  builder = ts.createSemanticDiagnosticsBuilderProgram(
    config.fileNames,
    config.options,
    ts.createIncrementalCompilerHost(config.options),
    builder,
  );
  const program = builder.getProgram();
  const own = program.getSourceFiles().filter((f) => f.fileName.startsWith(`${projectRoot()}/`));
  const diagnostics = [
    ...config.errors,
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...own.flatMap((f) => [
      ...program.getSyntacticDiagnostics(f),
      ...(builder?.getSemanticDiagnostics(f) ?? []),
    ]),
  ];
  if (diagnostics.length > 0) {
    throw new Error(
      `type check failed:\n${ts.formatDiagnostics(diagnostics, {
        getCanonicalFileName: (f) => f,
        getCurrentDirectory: () => workspace,
        getNewLine: () => '\n',
      })}`,
    );
  }
}

const bin = (name: string) => join(repository, 'node_modules', '.bin', name);

const timed = async <T>(what: string, f: () => T | Promise<T>): Promise<T> => {
  const t = Date.now();
  try {
    return await f();
  } finally {
    if (process.env.OPKIT_TIMING) process.stderr.write(`${what}: ${Date.now() - t} ms\n`);
  }
};

async function checkProject(model = new Map<string, KindModel>()): Promise<void> {
  await timed('biome', () => run(bin('biome'), ['check', `operators/${PROJECT}`], workspace));
  await timed('tsc', typeCheck);
  // A project without kinds has no unit tests yet (and vitest fails a run that finds none).
  if ([...snapshot().keys()].some((f) => f.startsWith('src/') && f.endsWith('.spec.ts'))) {
    await timed('vitest', () =>
      run(process.execPath, [bin('vitest'), 'run', '--project', 'unit', '--reporter=dot'], projectRoot()),
    );
  }
  const out = join(workspace, 'dist', 'bundle');
  rmSync(out, { recursive: true, force: true });
  await timed('bundle', () =>
    run(
      process.execPath,
      [
        join(repository, 'tools', 'opkit', 'bin', 'opkit.js'),
        'bundle',
        'generate',
        '--operator',
        `operators/${PROJECT}`,
        '--package',
        `${PROJECT}-operator`,
        '--version',
        '0.1.0',
        '--out',
        out,
      ],
      workspace,
    ),
  );
  // The bundle carries each kind's webhooks, for OLM to serve from the manager: a conversion for each kind
  // with a second version, and the admission webhooks the kinds have.
  const csv = parse(
    readFileSync(join(out, 'manifests', `${PROJECT}-operator.clusterserviceversion.yaml`), 'utf8'),
  ) as { spec: { webhookdefinitions?: { type: string }[] } };
  const kinds = [...model.values()];
  expect((csv.spec.webhookdefinitions ?? []).map((w) => w.type).sort()).toEqual([
    ...kinds.filter((k) => k.versions.length > 1).map(() => 'ConversionWebhook'),
    ...kinds.filter((k) => k.defaulting).map(() => 'MutatingAdmissionWebhook'),
    ...kinds.filter((k) => k.validation).map(() => 'ValidatingAdmissionWebhook'),
  ]);
}

beforeAll(async () => {
  workspace = mkdtempSync(join(tmpdir(), 'opkit-generator-order-'));
  writeFileSync(
    join(workspace, 'package.json'),
    `${JSON.stringify({ name: '@acme/source', private: true, type: 'module', workspaces: ['operators/*'] }, null, 2)}\n`,
  );
  writeFileSync(join(workspace, 'nx.json'), '{}\n');
  cpSync(join(repository, 'tsconfig.base.json'), join(workspace, 'tsconfig.base.json'));
  // The repository's Biome configuration, without its version-control integration (no git here).
  const biomeConfig = JSON.parse(readFileSync(join(repository, 'biome.json'), 'utf8')) as {
    vcs?: unknown;
    plugins?: string[];
  };
  delete biomeConfig.vcs;
  delete biomeConfig.plugins;
  writeFileSync(join(workspace, 'biome.json'), JSON.stringify(biomeConfig));
  symlinkSync(join(repository, 'node_modules'), join(workspace, 'node_modules'));
  await generate((tree) => operatorGenerator(tree, { name: PROJECT, domain: 'example.com' }));
  await checkProject();
  // The reused type check still sees a new file's errors.
  const broken = join(projectRoot(), 'src', 'broken.ts');
  writeFileSync(broken, "export const count: number = 'one';\n");
  expect(typeCheck).toThrow(/broken\.ts.*Type 'string' is not assignable to type 'number'/);
  rmSync(broken);
  baseline = mkdtempSync(join(tmpdir(), 'opkit-generator-order-baseline-'));
  states = mkdtempSync(join(tmpdir(), 'opkit-generator-order-states-'));
  cpSync(projectRoot(), baseline, { recursive: true });
}, 180_000);

afterAll(() => {
  for (const dir of [workspace, baseline, states]) if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The property's own failure, under fast-check's report of it. */
function causeOf(error: unknown): string {
  const cause = (error as Error).cause;
  return cause instanceof Error ? cause.message : (error as Error).message;
}

describe('the api, version and webhook generators in any order', () => {
  it('leave a project that passes lint, type check, unit tests and bundle generation after every step', async () => {
    let tried: Step[] = [];
    let at = 0;
    try {
      await fc.assert(
        fc.asyncProperty(sequenceArb, async (steps) => {
          tried = steps;
          const model = new Map<string, KindModel>();
          // The longest prefix of the sequence already checked (in an earlier sequence) starts it.
          let start = 0;
          while (start < steps.length && checked.has(JSON.stringify(steps.slice(0, start + 1)))) start++;
          const from = checked.get(JSON.stringify(steps.slice(0, start))) ?? baseline;
          rmSync(projectRoot(), { recursive: true, force: true });
          cpSync(from, projectRoot(), { recursive: true });
          for (const step of steps.slice(0, start)) predict(model, step);
          for (const [index, step] of steps.entries()) {
            if (index < start) continue;
            at = index;
            const expected = predict(model, step);
            const before = snapshot();
            let outcome: Outcome;
            let said: string[] = [];
            let refusal = '';
            try {
              ({ said } = await timed(command(step), () => apply(step)));
              outcome = said.some((line) => line.endsWith('nothing changed')) ? 'unchanged' : 'changed';
            } catch (error) {
              refusal = (error as Error).message;
              expect(refusal, 'a refusal is one line').not.toContain('\n');
              outcome = 'refused';
            }
            expect(outcome, `${command(step)} ${refusal}`).toBe(expected);
            if (outcome === 'changed') {
              await checkProject(model);
            } else {
              expect(said.length, 'one line saying nothing changed').toBeLessThanOrEqual(1);
              expect(snapshot(), 'no file changed').toEqual(before);
            }
            const state = join(states, String(checked.size));
            cpSync(projectRoot(), state, { recursive: true });
            checked.set(JSON.stringify(steps.slice(0, index + 1)), state);
          }
        }),
        { seed: SEED, numRuns: CASES, endOnFailure: true, examples: [[README_REVERSED]] },
      );
    } catch (error) {
      const sequence = tried.map((s, i) => `${i === at ? '>' : ' '} ${command(s)}`).join('\n');
      throw new Error(
        `seed ${SEED} (OPKIT_PROPERTY_SEED), after nx g @opkit/nx:operator ${PROJECT}:\n${sequence}\n${causeOf(error)}`,
      );
    }
  }, 600_000);
});
