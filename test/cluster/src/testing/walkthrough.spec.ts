import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { outputOf, runWalkthrough } from './walkthrough.js';

function guide(...lines: string[]): { file: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'walkthrough-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'GUIDE.md');
  writeFileSync(file, ['# Guide', '## Steps', '```sh', ...lines, '```', ''].join('\n'));
  return { file, dir };
}

describe('runWalkthrough (a guide’s commands, without a cluster)', () => {
  it('runs each command in order, carries exports, stands in for the cluster and leaves background ones running', async () => {
    const { file, dir } = guide(
      'npx nx run cluster:up   # the suite has one',
      'export KUBECONFIG=<printed path>',
      'export GREETING="hello there"',
      'sleep 30 && touch never   # runs until stopped',
      'echo "$KUBECONFIG $GREETING" > out.txt',
      'cat out.txt',
    );
    const runs = await runWalkthrough({
      file,
      section: 'Steps',
      cwd: dir,
      kubeconfig: '/k/config',
      background: /^sleep/,
    });
    expect(runs.map((r) => r.how)).toEqual(['standIn', 'ran', 'ran', 'background', 'ran', 'ran']);
    expect(outputOf(runs, 'cat out.txt')).toBe('/k/config hello there\n');
    expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toBe('/k/config hello there\n');
    expect(() => outputOf(runs, 'kubectl')).toThrow('the walk-through runs no command with "kubectl"');
  });

  it('returns once a background command and what it started have stopped, in a session of their own too', async () => {
    // The guide's next step waits until the operator is up (its signal handlers set), as a reader would.
    const { file, dir } = guide('sh operator.sh', 'while [ ! -e ready ]; do sleep 0.05; done');
    // Like `nx run`: the operator runs in a session of its own, gets SIGTERM from its parent and takes a
    // moment to shut down.
    writeFileSync(
      join(dir, 'operator.sh'),
      [
        `trap 'kill -TERM $operator; exit 0' TERM`,
        `setsid sh -c 'trap "sleep 1; touch stopped; exit 0" TERM; touch ready; while :; do sleep 0.1; done' &`,
        'operator=$!',
        'wait',
        '',
      ].join('\n'),
    );
    const runs = await runWalkthrough({
      file,
      section: 'Steps',
      cwd: dir,
      kubeconfig: '/k/config',
      background: /operator\.sh/,
    });
    expect(runs.map((r) => r.how)).toEqual(['background', 'ran']);
    expect(readFileSync(join(dir, 'stopped'), 'utf8')).toBe('');
  });

  it('stops at the first failing command, naming file, line, command and output', async () => {
    const { file, dir } = guide('echo first', 'echo broken >&2; exit 3', 'touch not-reached');
    await expect(
      runWalkthrough({ file, section: 'Steps', cwd: dir, kubeconfig: '/k/config' }),
    ).rejects.toThrow(`${file}:5: \`echo broken >&2; exit 3\` exited with 3\nbroken`);
    expect(() => readFileSync(join(dir, 'not-reached'))).toThrow();
  });
});
