#!/usr/bin/env node
// `npm test`: lint, typecheck and test every project, one task at a time, as Nx prints them. A full run prints
// tens of thousands of lines, and a CI log often keeps only its end; so after a failed run this repeats, at the
// very end, what each failed task said about its failure (vitest's failed-tests section, or the task's last
// lines), and names the complete log it writes under tmp/.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
const logDir = join(root, 'tmp');
const logFile = join(logDir, 'test-run.log');
/** Lines of a failed task repeated when it printed no failed-tests section (a lint or type error, a crash). */
const TAIL_LINES = 60;
/** At most this many lines of one task's failed-tests section. */
const SECTION_LINES = 200;

const nxArgs = ['run-many', '-t', 'lint', 'typecheck', 'test', '--outputStyle=static', '--parallel=1'];
mkdirSync(logDir, { recursive: true });
const log = createWriteStream(logFile);
const child = spawn('nx', [...nxArgs, ...process.argv.slice(2)], {
  cwd: root,
  stdio: ['inherit', 'pipe', 'pipe'],
  shell: process.platform === 'win32',
});
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  log.write(chunk);
});
child.stderr.on('data', (chunk) => {
  process.stderr.write(chunk);
  log.write(chunk);
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('error', (error) => {
  console.error(`npm test: could not start nx: ${error.message}`);
  process.exitCode = 1;
});
child.on('close', (code, signal) => {
  log.end(() => {
    const status = code ?? (signal ? 1 : 0);
    if (status !== 0) printFailures();
    process.exitCode = status;
  });
});

// biome-ignore lint/suspicious/noControlCharactersInRegex: terminal colour codes are control characters
const ANSI = /\u001b\[[0-9;]*m/g;

/** The failed tasks' own words, from the log: Nx names them in its summary and heads each task's output. */
function printFailures() {
  const lines = readFileSync(logFile, 'utf8').replace(ANSI, '').split('\n');
  const summary = lines.findLastIndex((l) => l.trim() === 'Failed tasks:');
  // Nx's closing lines ("NX   Running targets … failed") end the last task's output.
  const closing = lines.findLastIndex((l, i) => i < summary && l.startsWith(' NX '));
  const failed = [];
  for (const line of lines.slice(summary + 1)) {
    const task = /^\s*-\s+(\S+:\S+)/.exec(line)?.[1];
    if (task) failed.push(task);
    else if (failed.length > 0 && line.trim() !== '') break;
  }
  if (summary < 0 || failed.length === 0) return;
  const out = ['', `npm test: ${failed.length} failed task(s); what each said (the whole log: ${logFile})`];
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
    out.push('', `── ${task} ──`);
    out.push(...(section >= 0 ? output.slice(section, section + SECTION_LINES) : output.slice(-TAIL_LINES)));
  }
  console.log(out.join('\n'));
}
