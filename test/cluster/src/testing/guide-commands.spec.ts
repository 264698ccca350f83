import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { guideCommands, stripComment } from './guide-commands.js';

const root = join(import.meta.dirname, '..', '..', '..', '..');
/** The Redis operator's project, found through its package as npm linked it into the workspace. */
const redisProject = dirname(createRequire(import.meta.url).resolve('@opkit/redis-operator/package.json'));
const texts = (markdown: string, section: string) => guideCommands(markdown, section).map((c) => c.text);

const guide = [
  '# Title',
  '## Steps',
  'Some prose with `inline code`.',
  '```sh',
  'npx nx run cluster:up          # prints a path',
  '',
  '# a comment line',
  'kubectl patch x --type=merge -p \'{"a":"#not a comment"}\'',
  'kubectl get pods \\',
  '  -n default   # the namespace',
  "kubectl apply -f - <<'EOF'",
  'kind: Thing # kept: part of the document',
  'EOF',
  '```',
  '```yaml',
  'kind: NotACommand',
  '```',
  '### A subsection',
  '```bash',
  'echo "a # inside quotes" done',
  '```',
  '## Next',
  '```sh',
  'echo not part of Steps',
  '```',
].join('\n');

describe('guideCommands (the shell commands of a guide section)', () => {
  it('takes the shell blocks under the heading and its subsections, command for command', () => {
    expect(guideCommands(guide, 'Steps')).toEqual([
      { text: 'npx nx run cluster:up', line: 5 },
      { text: 'kubectl patch x --type=merge -p \'{"a":"#not a comment"}\'', line: 8 },
      { text: 'kubectl get pods -n default', line: 9 },
      { text: "kubectl apply -f - <<'EOF'\nkind: Thing # kept: part of the document\nEOF", line: 11 },
      { text: 'echo "a # inside quotes" done', line: 20 },
    ]);
    expect(texts(guide, 'Next')).toEqual(['echo not part of Steps']);
  });

  it('names the file and the line when the guide cannot be read as a walk-through', () => {
    expect(() => guideCommands(guide, 'Missing', 'README.md')).toThrow('README.md: no heading "Missing"');
    expect(() => guideCommands('## S\n```yaml\na: 1\n```\n', 'S', 'g.md')).toThrow(
      'g.md: no shell block under "S"',
    );
    expect(() => guideCommands('## S\n```sh\necho\n', 'S', 'g.md')).toThrow('g.md:2: code block not closed');
    expect(() => guideCommands('## S\n```sh\ncat <<EOF\nx\n```\n', 'S', 'g.md')).toThrow(
      'g.md:3: heredoc EOF not closed',
    );
  });

  it('strips comments only where the shell would', () => {
    expect(stripComment('echo a # b')).toBe('echo a ');
    expect(stripComment('# all')).toBe('');
    expect(stripComment('echo a#b')).toBe('echo a#b');
    expect(stripComment('echo \'# no\' "# no" \\# no')).toBe('echo \'# no\' "# no" \\# no');
  });

  it('reads the walk-throughs of the README and of the Redis guide', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const running = texts(readme, 'Running an operator');
    expect(running[0]).toBe('npx nx run cluster:up');
    expect(running).toContain('export KUBECONFIG=<printed path>');
    expect(running.some((c) => c.startsWith('npx nx run memcached:run'))).toBe(true);
    expect(running.at(-1)).toMatch(/^kubectl wait .*--for=condition=Available/);

    const redis = texts(readFileSync(join(redisProject, 'README.md'), 'utf8'), 'Walk-through');
    expect(redis.find((c) => c.startsWith('kubectl apply -n default -f -'))).toMatch(
      /\nspec: \{ size: 3 \}\n/,
    );
    expect(redis).toContain('kubectl get -n default statefulset cache');
    expect(redis).toContain(
      `kubectl patch -n default rediscluster/cache --type=merge -p '{"spec":{"size":5}}'`,
    );
    expect(redis.some((c) => c.startsWith('kubectl describe'))).toBe(true);
    expect(redis.some((c) => c.startsWith('kubectl delete'))).toBe(true);
  });
});
