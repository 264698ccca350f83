// The guides, command for command, against the suite's cluster (its real node runs the memcached pods): the
// repository README's "Running an operator", which ends with the sample Available, and this operator's
// README's walk-through. A change to a guide that no longer works fails here.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { outputOf, runWalkthrough } from '@opkit/test-cluster/vitest';
import { afterAll, describe, expect, inject, it } from 'vitest';

const run = promisify(execFile);
const repo = join(import.meta.dirname, '..', '..', '..');
const kubeconfig = () => inject('opkitKubeconfig');

describe('the README’s “Running an operator”', () => {
  afterAll(async () => {
    // The guide leaves the sample for the reader to look at; the suite's later files start clean. Its
    // operator has stopped with the walk-through, so nobody runs the finalizer: take it off, then delete.
    const env = { ...process.env, KUBECONFIG: kubeconfig() };
    const sample = ['-n', 'default', 'memcached/memcached-sample'];
    await run('kubectl', ['patch', ...sample, '--type=merge', '-p', '{"metadata":{"finalizers":null}}'], {
      env,
    }).catch(() => undefined); // not there: the walk-through failed before creating it
    await run('kubectl', ['delete', ...sample, '--ignore-not-found', '--wait', '--timeout=120s'], { env });
  });

  it('runs the operator from the workspace and the sample ends Available', async () => {
    const runs = await runWalkthrough({
      file: join(repo, 'README.md'),
      section: 'Running an operator',
      cwd: repo,
      kubeconfig: kubeconfig(),
      background: /\bnx run memcached:run\b/,
    });
    expect(runs.map((r) => r.how)).toEqual(['standIn', 'ran', 'ran', 'background', 'ran', 'ran']);
    expect(runs.at(-1)?.stdout).toContain('memcached.cache.example.com/memcached-sample condition met');
  }, 900_000);
});

describe('the operator README’s walk-through', () => {
  it('creates one server, scales to three, shows the events and deletes everything', async () => {
    const runs = await runWalkthrough({
      file: join(repo, 'operators', 'memcached', 'README.md'),
      section: 'Walk-through',
      cwd: repo,
      kubeconfig: kubeconfig(),
      background: /\bnx run memcached:run\b/,
    });
    expect(runs.filter((r) => r.how === 'standIn').map((r) => r.command.text)).toEqual([
      'npx nx run cluster:up',
    ]);
    expect(outputOf(runs, 'get -n default deployment sessions')).toMatch(/^sessions\s+1\/1\s/m);
    expect(outputOf(runs, 'get -n default memcached sessions')).toMatch(/^sessions\s+3\s+64Mi\s+3\s+True\s/m);
    const described = outputOf(runs, 'kubectl describe');
    expect(described).toMatch(/Events:/);
    expect(described).toContain('AllServersReady'); // the one piece of news: the first server came up
    expect(outputOf(runs, 'kubectl get -n default deployment,service')).toContain('No resources found');
  }, 900_000);
});
