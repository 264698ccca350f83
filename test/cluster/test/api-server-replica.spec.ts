// A second API server of a running kwok-only cluster, started from nothing but the cluster's admin kubeconfig
// path, as a test file of the shared cluster starts one: it serves the same objects, and stopping or
// restarting it leaves the cluster's own API server serving.

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalCluster, startCluster } from '../src/cluster.js';
import { type ApiServerReplica, startApiServerReplica } from '../src/control-plane/api-server-replica.js';
import { listWatch } from '../src/kube/list-watch.js';
import { KubeRest, type WatchEvent } from '../src/kube/rest.js';
import { eventually } from '../src/testing/index.js';
import { pidAlive } from '../src/toolchain/cache.js';

interface ConfigMap {
  metadata: { name: string; resourceVersion: string };
  data?: Record<string, string>;
}
interface Lease {
  metadata: { name: string; annotations?: Record<string, string> };
  spec: { holderIdentity?: string };
}
interface ConfigMapList {
  metadata: { resourceVersion: string };
  items: ConfigMap[];
}

let cluster: LocalCluster;
let replica: ApiServerReplica;
let main: KubeRest;
let throughReplica: KubeRest;
/** The cluster's own API server's identity lease, read before the replica started. */
let identityBefore: Lease;
const ns = `replica-${randomBytes(3).toString('hex')}`;
const configMaps = `/api/v1/namespaces/${ns}/configmaps`;

beforeAll(async () => {
  cluster = await startCluster({ realNode: false, nodes: 0 });
  main = new KubeRest(cluster.kubeConfig);
  identityBefore = await eventually('the API server to hold its identity lease', identityLease);
  // Only the kubeconfig path, as a test file of a shared cluster has it.
  replica = await startApiServerReplica(cluster.kubeconfigPath);
  throughReplica = new KubeRest(replica.kubeConfig);
  await main.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
  });
});
afterAll(async () => {
  throughReplica?.close();
  main?.close();
  await replica?.stop();
  await cluster?.stop();
});

/** The one identity lease of API servers on this host (named after the host name), once there is one. */
async function identityLease(): Promise<Lease | undefined> {
  const leases = await main.request<{ items: Lease[] }>(
    'GET',
    '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases',
    { query: { labelSelector: 'apiserver.kubernetes.io/identity=kube-apiserver' } },
  );
  expect(leases.items.length).toBeLessThanOrEqual(1);
  return leases.items[0];
}

const createConfigMap = (rest: KubeRest, name: string) =>
  rest.request<ConfigMap>('POST', configMaps, {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { by: name } },
  });

/**
 * A watch of the namespace's ConfigMaps through `rest` from `resourceVersion`: the events it saw (bookmarks
 * aside) and the resourceVersion of the last, to resume from.
 */
function watchConfigMaps(rest: KubeRest, resourceVersion: string) {
  const seen: string[] = [];
  const abort = new AbortController();
  const state = { ended: false, lastResourceVersion: resourceVersion };
  const done = rest
    .watch<ConfigMap>(
      configMaps,
      { resourceVersion },
      (event: WatchEvent<ConfigMap>) => {
        state.lastResourceVersion = event.object.metadata.resourceVersion;
        if (event.type !== 'BOOKMARK') seen.push(`${event.type} ${event.object.metadata.name}`);
      },
      abort.signal,
    )
    // The server's refusal (e.g. 410 Gone for a version it no longer has) ends the watch as its last event.
    .then((error) => {
      if (error) seen.push(`ERROR ${JSON.stringify(error.object)}`);
    })
    // A cut stream ends the watch without an error or with one, depending on where it was cut.
    .catch(() => undefined)
    .finally(() => {
      state.ended = true;
    });
  return { seen, done, state, abort: () => abort.abort() };
}

describe('an API server replica of a running cluster', () => {
  it('serves the objects of the cluster: what is written through one API server is read through the other', async () => {
    expect(replica.server).not.toBe(cluster.server);
    await createConfigMap(main, 'by-main');
    await createConfigMap(throughReplica, 'by-replica');
    const viaReplica = await throughReplica.request<ConfigMap>('GET', `${configMaps}/by-main`);
    const viaMain = await main.request<ConfigMap>('GET', `${configMaps}/by-replica`);
    expect(viaReplica.data).toEqual({ by: 'by-main' });
    expect(viaMain.data).toEqual({ by: 'by-replica' });
  });

  it("leaves the identity lease of the host's API servers to the cluster's own, whose host name it shares", async () => {
    // Both would renew it as their own: each would log a conflict every ten seconds, and the lease would name
    // whichever wrote last.
    const lease = await identityLease();
    expect(lease?.metadata.name).toBe(identityBefore.metadata.name);
    expect(lease?.spec.holderIdentity).toBe(identityBefore.spec.holderIdentity);
    expect(lease?.metadata.annotations).toEqual(identityBefore.metadata.annotations);
  });

  it('cuts its watches when it restarts, and a client that lists and watches again carries on through it', async () => {
    const names = new Set<string>();
    const stopInformer = new AbortController();
    // As an informer does: list, watch, and list again when the version it watched from is gone.
    const informer = listWatch<ConfigMap>(
      throughReplica,
      configMaps,
      {},
      {
        sync: (items) => {
          names.clear();
          for (const item of items) names.add(item.metadata.name);
        },
        added: (item) => names.add(item.metadata.name),
        modified: () => {},
        deleted: (item) => names.delete(item.metadata.name),
      },
      stopInformer.signal,
    );
    const list = await throughReplica.request<ConfigMapList>('GET', configMaps);
    const cut = watchConfigMaps(throughReplica, list.metadata.resourceVersion);
    await createConfigMap(main, 'before-restart');
    await eventually('the watch through the replica to see the write', async () =>
      cut.seen.includes('ADDED before-restart'),
    );
    expect(cut.state.ended).toBe(false);

    const restarted = replica.restart({ downtimeMs: 2000 });
    await eventually('the replica to be down', async () => replica.pid === undefined);
    await cut.done;
    expect(cut.state.ended).toBe(true);
    await createConfigMap(main, 'while-down');
    await restarted;

    // The restarted API server's watch cache begins after the cut watch's last event, so it refuses to resume
    // from there: a client must list again.
    const resumed = watchConfigMaps(throughReplica, cut.state.lastResourceVersion);
    await resumed.done;
    expect(resumed.seen).toEqual([expect.stringMatching(/^ERROR .*"code":410/)]);

    await createConfigMap(throughReplica, 'after-restart');
    await eventually(
      'the informer to see the writes made while the replica was down and after',
      async () => names.has('while-down') && names.has('after-restart'),
    );
    stopInformer.abort();
    await informer;
  });

  it('leaves the cluster serving while it is down', async () => {
    const restarted = replica.restart({ downtimeMs: 3000 });
    await eventually('the replica to be down', async () => replica.pid === undefined);
    await expect(throughReplica.getText('/readyz', 1000)).rejects.toThrow();
    expect((await main.getText('/readyz')).status).toBe(200);
    await createConfigMap(main, 'while-replica-down');
    await restarted;
    expect((await throughReplica.getText('/readyz')).status).toBe(200);
    const read = await throughReplica.request<ConfigMap>('GET', `${configMaps}/while-replica-down`);
    expect(read.data).toEqual({ by: 'while-replica-down' });
  });

  it('leaves no process and no kubeconfig behind when stopped, and the cluster serving', async () => {
    const second = await startApiServerReplica(cluster.kubeconfigPath);
    const pid = second.pid;
    expect(pid).toBeDefined();
    expect(pid !== undefined && pidAlive(pid)).toBe(true);
    await second.stop();
    expect(second.pid).toBeUndefined();
    expect(pid !== undefined && pidAlive(pid)).toBe(false);
    expect(existsSync(second.kubeconfigPath)).toBe(false);
    const gone = new KubeRest(second.kubeConfig);
    try {
      await expect(gone.getText('/readyz', 1000)).rejects.toThrow();
    } finally {
      gone.close();
    }
    expect((await main.getText('/readyz')).status).toBe(200);
  });

  it('dies with the process that started it, when that process is killed before stopping it', async () => {
    const child = spawn(
      process.execPath,
      [
        '--conditions=@opkit/source',
        '--import',
        'tsx',
        join(import.meta.dirname, 'fixtures', 'replica-then-hang.ts'),
        cluster.kubeconfigPath,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const pid = await new Promise<number>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve((JSON.parse(out.split('\n')[0] ?? '') as { pid: number }).pid);
      });
      child.once('exit', (code) => reject(new Error(`the fixture exited ${code}`)));
    });
    expect(pidAlive(pid)).toBe(true);
    child.kill('SIGKILL');
    await eventually('the replica to die with its parent', async () => !pidAlive(pid), { timeoutMs: 10_000 });
    expect((await main.getText('/readyz')).status).toBe(200);
  });
});
