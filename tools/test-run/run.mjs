#!/usr/bin/env node
// `npm test`: lint, typecheck and test every project. Only one real node runs on a machine at a time, and the
// test files that start one are most of the run but seldom keep two cores busy; so after the builds, two lanes
// run side by side: `node` runs the test files that need the real node, one project after another, and `other`
// runs lint, type checks and every test file that needs no real node (unit tests, envtest, kwok-only clusters,
// a registry); lanes.mjs says which Nx tasks each runs.
// Each lane's Nx output goes to the terminal with the lane's name in front of each line, and to its own log
// under tmp/test-run/. A full run prints tens of thousands of lines, and a CI log often keeps only its end; so
// the run ends with its slowest test files and, after a failure, what each failed task said about it.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { NO_REAL_NODE_SUITES, REAL_NODE_PROJECTS, REAL_NODE_SUITES } from './lanes.mjs';

const root = join(import.meta.dirname, '..', '..');
const logDir = join(root, 'tmp', 'test-run');
// biome-ignore lint/suspicious/noControlCharactersInRegex: terminal colour codes are control characters
const ANSI = /\u001b\[[0-9;]*m/g;
/** Lines of a failed task repeated when it printed no failed-tests section (a lint or type error, a crash). */
const TAIL_LINES = 60;
/** At most this many lines of one task's failed-tests section. */
const SECTION_LINES = 200;
/** How many of the slowest test files the run names at its end. */
const SLOWEST = 10;

/** Projects whose `build` the tests run (`bundle` and `catalog` build images and are not tests). */
const BUILT = [
  'controller-runtime',
  'controller-tools',
  'oci',
  'olm',
  'opkit',
  'cluster',
  'nx-plugin',
  'create-opkit',
];
const extra = process.argv.slice(2);
const common = ['--outputStyle=static', '--parallel=1', ...extra];
// Each lane runs its tasks' dependencies itself: the builds first, the components (`cluster:prepare`) in the
// node lane before the other lane's suites need them.
const alone = ['--excludeTaskDependencies'];

rmSync(logDir, { recursive: true, force: true });
mkdirSync(logDir, { recursive: true });
/** Every Nx command run, in order of start: its lane, arguments, log and exit status. */
const runs = [];
let stopping = false;
const children = new Set();

/** Runs `nx` with `args`, its output prefixed with `lane` and kept in its own log; resolves with its status. */
function nx(lane, args) {
  if (stopping) return Promise.resolve(1);
  const run = { lane, args, log: join(logDir, `${runs.length + 1}-${lane}.log`), status: 0 };
  runs.push(run);
  const log = createWriteStream(run.log);
  const prefix = lane === 'node' ? '[node]  ' : '[other] ';
  console.log(`${prefix}$ nx ${args.join(' ')}`);
  const child = spawn('nx', args, {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    shell: process.platform === 'win32',
  });
  children.add(child);
  for (const [stream, out] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ]) {
    createInterface({ input: stream }).on('line', (line) => {
      out.write(`${prefix}${line}\n`);
      log.write(`${line}\n`);
    });
  }
  return new Promise((resolve) => {
    child.on('error', (error) => {
      console.error(`npm test: could not start nx: ${error.message}`);
    });
    child.on('close', (code, signal) => {
      children.delete(child);
      run.status = code ?? (signal ? 1 : 0);
      log.end(() => resolve(run.status));
    });
  });
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    stopping = true;
    for (const child of children) child.kill(signal);
  });
}

const started = Date.now();
const built = (await nx('node', ['run-many', '-t', 'build', '-p', BUILT.join(','), ...common])) === 0;
if (built) {
  const prepared = nx('node', ['run', 'cluster:prepare', ...common]);
  await Promise.all([
    (async () => {
      if ((await prepared) !== 0) return;
      for (const suite of REAL_NODE_SUITES) await nx('node', ['run', suite, ...alone, ...common]);
    })(),
    (async () => {
      await nx('other', ['run-many', '-t', 'lint', 'typecheck', ...common]);
      await nx('other', ['run', 'catalog:check', ...alone, ...common]);
      if ((await prepared) !== 0) return;
      const others = ['run-many', '-t', 'test', '--exclude', REAL_NODE_PROJECTS.join(',')];
      await nx('other', [...others, ...alone, ...common]);
      for (const suite of NO_REAL_NODE_SUITES) await nx('other', ['run', suite, ...alone, ...common]);
    })(),
  ]);
}
const failed = runs.filter((r) => r.status !== 0);
printSlowest();
if (failed.length > 0) printFailures(failed);
console.log(
  `\nnpm test: ${failed.length === 0 ? 'passed' : 'FAILED'} in ${Math.round((Date.now() - started) / 1000)} s (logs: ${logDir})`,
);
process.exitCode = failed.length === 0 ? 0 : 1;

function logLines(run) {
  return readFileSync(run.log, 'utf8').replace(ANSI, '').split('\n');
}

/** The slowest test files of the whole run, from vitest's per-file lines (`✓ e2e test/x.spec.ts (3 tests) 123ms`). */
function printSlowest() {
  const files = [];
  for (const run of runs) {
    let task = '';
    for (const line of logLines(run)) {
      const header = /^> nx run (\S+:\S+)/.exec(line.trim());
      if (header) task = header[1].split(':')[0];
      const file = /^\s*[✓×❯]\s+(\S+)\s+(\S+\.spec\.ts)\s+\(\d+ tests?[^)]*\)\s+(\d+)ms/.exec(line);
      if (file) files.push({ name: `${task} ${file[1]} ${file[2]}`, ms: Number(file[3]) });
    }
  }
  files.sort((a, b) => b.ms - a.ms);
  if (files.length === 0) return;
  console.log(`\nnpm test: the ${Math.min(SLOWEST, files.length)} slowest test files`);
  for (const file of files.slice(0, SLOWEST))
    console.log(`${(file.ms / 1000).toFixed(0).padStart(6)} s  ${file.name}`);
}

/** The failed tasks' own words, from each failed Nx command's log: Nx names them in its summary. */
function printFailures(failedRuns) {
  const out = ['', `npm test: ${failedRuns.length} Nx command(s) failed; what each failed task said`];
  for (const run of failedRuns) {
    const lines = logLines(run);
    const summary = lines.findLastIndex((l) => l.trim() === 'Failed tasks:');
    const failed = [];
    for (const line of summary < 0 ? [] : lines.slice(summary + 1)) {
      const task = /^\s*-\s+(\S+:\S+)/.exec(line)?.[1];
      if (task) failed.push(task);
      else if (failed.length > 0 && line.trim() !== '') break;
    }
    if (failed.length === 0) {
      // A single `nx run` names no failed tasks: its output is the task's.
      out.push('', `── nx ${run.args.join(' ')} (${run.log}) ──`, ...lines.slice(-TAIL_LINES));
      continue;
    }
    // Nx's closing lines ("NX   Running targets … failed") end the last task's output.
    const closing = lines.findLastIndex((l, i) => i < summary && l.startsWith(' NX '));
    for (const task of failed) {
      const start = lines.findIndex(
        (l) => l.trim() === `> nx run ${task}` || l.trim().startsWith(`> nx run ${task} `),
      );
      if (start < 0) continue;
      let end = lines.findIndex((l, i) => i > start && /^> nx run \S+:\S+/.test(l.trim()));
      if (end < 0) end = closing >= 0 ? closing : summary;
      const output = lines.slice(start, end);
      const section = output.findIndex(
        (l) => /⎯+ Failed (Tests|Suites) \d+ ⎯+/.test(l) || /⎯+ Unhandled Error/.test(l),
      );
      out.push('', `── ${task} (${run.log}) ──`);
      out.push(
        ...(section >= 0 ? output.slice(section, section + SECTION_LINES) : output.slice(-TAIL_LINES)),
      );
    }
  }
  console.log(out.join('\n'));
}
