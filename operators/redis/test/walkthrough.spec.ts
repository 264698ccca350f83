// The Redis guide's walk-through, command for command, against the suite's cluster (its real node runs the
// Redis pods): the guide is the test, so a change to it that no longer works fails here.
import { join } from 'node:path';
import { outputOf, runWalkthrough } from '@opkit/test-cluster/vitest';
import { describe, expect, inject, it } from 'vitest';

const repo = join(import.meta.dirname, '..', '..', '..');

describe('the README’s walk-through', () => {
  it('creates 3 primaries, scales to 5 nodes, shows the events and deletes everything', async () => {
    const runs = await runWalkthrough({
      file: join(repo, 'operators', 'redis', 'README.md'),
      section: 'Walk-through',
      cwd: repo,
      kubeconfig: inject('opkitKubeconfig'),
      background: /\bnx run redis:run\b/,
    });
    expect(runs.filter((r) => r.how === 'standIn').map((r) => r.command.text)).toEqual([
      'npx nx run cluster:up',
    ]);
    expect(outputOf(runs, 'get -n default statefulset cache')).toMatch(/^cache\s+3\/3\s/m);
    const described = outputOf(runs, 'kubectl describe');
    expect(described).toMatch(/Events:/);
    for (const reason of ['Created', 'ClusterCreated', 'ScaledOut']) expect(described).toContain(reason);
    expect(outputOf(runs, 'kubectl get -n default statefulset,service')).toContain('No resources found');
  }, 900_000);
});
