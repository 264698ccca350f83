import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadKubeConfig } from '../internal/transport/kubeconfig.js';
import { createLogger } from '../log/index.js';
import { RuntimeMetrics } from '../metrics/runtime-metrics.js';
import { Manager } from './manager.js';

// Leader for life without a Pod name: skipped outside a cluster, refused inside one, where the replica would
// lead beside the one holding the lock. Neither case talks to the API server.

const dir = mkdtempSync(join(tmpdir(), 'opkit-for-life-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const kubeconfig = join(dir, 'kubeconfig');
writeFileSync(
  kubeconfig,
  `current-context: x
contexts: [{name: x, context: {cluster: c, user: u}}]
clusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]
users: [{name: u, user: {token: t}}]
`,
);

let savedPodName: string | undefined;
beforeEach(() => {
  savedPodName = process.env.POD_NAME;
  delete process.env.POD_NAME;
});
afterEach(() => {
  if (savedPodName !== undefined) process.env.POD_NAME = savedPodName;
});

function forLifeManager(inCluster: boolean) {
  const logged: { level: string; msg: string }[] = [];
  const manager = new Manager({
    kubeConfig: loadKubeConfig(kubeconfig),
    logger: createLogger({ level: 'info', sink: (line) => logged.push(JSON.parse(line)) }),
    metrics: new RuntimeMetrics(),
    leaderElection: { mode: 'for-life', id: 'demo-operator-lock', namespace: 'operators', inCluster },
  });
  let ledOnce = false;
  manager.add({
    start: async () => {
      ledOnce = true;
    },
  });
  return { manager, logged, led: () => ledOnce };
}

describe('leader for life without POD_NAME', () => {
  it('in a cluster, the manager does not start: it would lead beside the replica holding the lock', async () => {
    const { manager, led } = forLifeManager(true);
    await expect(manager.start(new AbortController().signal)).rejects.toThrow(
      new Error(
        'leader election for life needs POD_NAME (set it from the downward API: fieldRef metadata.name)',
      ),
    );
    expect(led()).toBe(false);
  });

  it('outside a cluster, it is skipped with a warning and the replica leads at once', async () => {
    const { manager, logged, led } = forLifeManager(false);
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    await manager.elected;
    stop.abort();
    await running;
    expect(led()).toBe(true);
    expect(logged.filter((e) => e.level === 'warn').map((e) => e.msg)).toContain(
      'leader for life skipped: not running in a cluster and no POD_NAME; this replica leads',
    );
  });
});
