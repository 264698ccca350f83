// The README's "Running an operator" steps, command for command, against the suite's cluster (its real node
// runs the memcached pods): they end with the sample Available.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runWalkthrough } from '@opkit/test-cluster/vitest';
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
