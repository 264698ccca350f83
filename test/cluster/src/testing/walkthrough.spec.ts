import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { outputOf, runWalkthrough } from './walkthrough.js';

function guide(...lines: string[]): { file: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'walkthrough-'));
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

  it('stops at the first failing command, naming file, line, command and output', async () => {
    const { file, dir } = guide('echo first', 'echo broken >&2; exit 3', 'touch not-reached');
    await expect(
      runWalkthrough({ file, section: 'Steps', cwd: dir, kubeconfig: '/k/config' }),
    ).rejects.toThrow(`${file}:5: \`echo broken >&2; exit 3\` exited with 3\nbroken`);
    expect(() => readFileSync(join(dir, 'not-reached'))).toThrow();
  });
});
