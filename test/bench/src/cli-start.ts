// `nx run bench:cli-start`: how long `opkit --help` and `opkit --version` take from process start to exit, as
// users run the command — the installed bin `node_modules/.bin/opkit` started through its `#!/usr/bin/env node`
// line, as a shell or an Nx target starts it, and the same bin given to node — next to `node -e ''`, the
// floor no Node program starts under, and to the bin running the TypeScript sources (OPKIT_FROM_SOURCE=1, the
// fallback in a checkout without a build). Interleaved runs, so every variant sees the same machine state.
// `--runs=<n>` (default 20) sets the number of runs of each.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { opkitScript } from '@opkit/test-cluster';
import { formatMachine, machineInfo } from './machine.js';
import { formatTable, metric, writeJson } from './report.js';

const opkit = opkitScript();
/** The installed bin: the workspace's `node_modules/.bin/opkit` link to the CLI's bin. */
const installedBin = join(import.meta.dirname, '..', '..', '..', 'node_modules', '.bin', 'opkit');
const runs = Number(
  /^--runs=(\d+)$/.exec(process.argv.slice(2).find((a) => a.startsWith('--runs=')) ?? '')?.[1] ?? 20,
);

interface Variant {
  readonly id: string;
  readonly title: string;
  /** The executable, when not this process's node. */
  readonly executable?: string;
  readonly args: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
}

const { OPKIT_FROM_SOURCE: _, ...inherited } = process.env;
// `#!/usr/bin/env node` finds the node this benchmark runs on, as it finds a workspace's in its Nx targets.
const env = { ...inherited, PATH: `${dirname(process.execPath)}:${inherited.PATH ?? ''}` };
const VARIANTS: readonly Variant[] = [
  { id: 'node-floor', title: "node -e ''", args: ['-e', ''] },
  {
    id: 'opkit-help-bin',
    title: 'node_modules/.bin/opkit --help',
    executable: installedBin,
    args: ['--help'],
  },
  { id: 'opkit-help', title: 'opkit --help', args: [opkit, '--help'] },
  { id: 'opkit-version', title: 'opkit --version', args: [opkit, '--version'] },
  {
    id: 'opkit-help-from-source',
    title: 'opkit --help from sources (tsx)',
    args: [opkit, '--help'],
    env: { ...env, OPKIT_FROM_SOURCE: '1' },
  },
];

/** Wall time of one run, process start to exit, in milliseconds. */
function time(variant: Variant): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(variant.executable ?? process.execPath, variant.args, {
    env: variant.env ?? env,
    encoding: 'utf8',
  });
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) {
    throw new Error(`${variant.title} exited with ${result.status ?? result.signal}: ${result.stderr}`);
  }
  return elapsed;
}

function main(): void {
  const samples = new Map<string, number[]>(VARIANTS.map((v) => [v.id, []]));
  for (const variant of VARIANTS) time(variant); // warm the file system cache
  for (let i = 0; i < runs; i++) {
    for (const variant of VARIANTS) samples.get(variant.id)!.push(time(variant));
  }
  const metrics = VARIANTS.map((v) => metric('cli-start', v.id, v.title, 'ms', 'lower', samples.get(v.id)!));
  const median = (id: string): number => metrics.find((m) => m.id === id)!.median;
  const ratio = {
    helpOverNodeFloor: median('opkit-help') / median('node-floor'),
    installedBinHelpOverNodeFloor: median('opkit-help-bin') / median('node-floor'),
    versionOverNodeFloor: median('opkit-version') / median('node-floor'),
    helpFromSourceOverHelp: median('opkit-help-from-source') / median('opkit-help'),
  };
  process.stdout.write(`\n${formatMachine(machineInfo())}\n\n${formatTable(metrics)}\n\n`);
  process.stdout.write(
    `node_modules/.bin/opkit --help: ${median('opkit-help-bin').toFixed(0)} ms, ` +
      `${ratio.installedBinHelpOverNodeFloor.toFixed(2)}× node -e '' (${median('node-floor').toFixed(0)} ms); ` +
      `opkit --help: ${median('opkit-help').toFixed(0)} ms, ${ratio.helpOverNodeFloor.toFixed(2)}×; ` +
      `from sources ${ratio.helpFromSourceOverHelp.toFixed(1)}× slower\n`,
  );
  const out = join(import.meta.dirname, '..', 'results', 'cli-start.json');
  writeJson(out, { machine: machineInfo(), runs, metrics, ratio });
  process.stdout.write(`Results written to ${out}\n`);
}

try {
  main();
} catch (error) {
  process.stderr.write(`bench:cli-start failed: ${(error as Error).message}\n`);
  process.exitCode = 1;
}
