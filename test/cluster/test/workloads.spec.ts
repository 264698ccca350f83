import { Socket } from 'node:net';
import type { V1Deployment, V1Pod, V1PodList, V1ReplicaSetList } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  eventually,
  KubeApiError,
  KubeRest,
  processesOnPodIP,
  testKubeConfig,
  useTestNamespace,
} from '../src/testing/index.js';

const rest = new KubeRest(testKubeConfig());
const ns = useTestNamespace();

/** Sends one line to host:port and resolves with the first line answered. */
function ask(host: string, port: number, line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = new Socket();
    let answer = '';
    socket.setTimeout(3000, () => socket.destroy(new Error(`no answer from ${host}:${port}`)));
    socket.once('error', reject);
    socket.on('data', (chunk) => {
      answer += chunk.toString();
      const end = answer.indexOf('\r\n');
      if (end >= 0) {
        socket.destroy();
        resolve(answer.slice(0, end));
      }
    });
    socket.connect(port, host, () => socket.write(`${line}\r\n`));
  });
}

const podsPath = () => `/api/v1/namespaces/${ns.name}/pods`;

async function createPod(
  name: string,
  spec: V1Pod['spec'],
  labels: Record<string, string> = {},
): Promise<void> {
  await rest.request('POST', podsPath(), {
    body: { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels }, spec },
  });
}

async function readyPod(name: string, restarts?: number): Promise<V1Pod> {
  return eventually(`pod ${name} to be Ready`, async () => {
    const pod = await rest.request<V1Pod>('GET', `${podsPath()}/${name}`);
    const ready = pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
    const count = pod.status?.containerStatuses?.[0]?.restartCount ?? 0;
    return ready && (restarts === undefined || count >= restarts) ? pod : undefined;
  });
}

describe('a real control plane', () => {
  it('rolls a Deployment out to Ready pods on the fake nodes', async () => {
    const labels = { app: 'web' };
    await rest.request('POST', `/apis/apps/v1/namespaces/${ns.name}/deployments`, {
      body: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web' },
        spec: {
          replicas: 3,
          selector: { matchLabels: labels },
          template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
        },
      },
    });
    const deployment = await eventually('3 available replicas', async () => {
      const d = await rest.request<V1Deployment>(
        'GET',
        `/apis/apps/v1/namespaces/${ns.name}/deployments/web`,
      );
      return d.status?.availableReplicas === 3 ? d : undefined;
    });
    expect(deployment.status?.readyReplicas).toBe(3);
    const pods = await rest.request<V1PodList>('GET', podsPath(), { query: { labelSelector: 'app=web' } });
    expect(pods.items).toHaveLength(3);
    for (const pod of pods.items) {
      expect(pod.spec?.nodeName).toMatch(/^opkit-node-\d$/);
      expect(pod.status?.podIP).toMatch(/^127\.\d+\.\d+\.\d+$/);
    }
  });

  it('garbage-collects dependents when their owner is deleted', async () => {
    const labels = { app: 'owned' };
    await rest.request('POST', `/apis/apps/v1/namespaces/${ns.name}/deployments`, {
      body: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'owned' },
        spec: {
          replicas: 2,
          selector: { matchLabels: labels },
          template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
        },
      },
    });
    await eventually('pods of the Deployment', async () => {
      const pods = await rest.request<V1PodList>('GET', podsPath(), {
        query: { labelSelector: 'app=owned' },
      });
      return pods.items.length === 2 || undefined;
    });
    await rest.request('DELETE', `/apis/apps/v1/namespaces/${ns.name}/deployments/owned`, {
      body: { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Background' },
    });
    await eventually('ReplicaSets and pods to be collected', async () => {
      const sets = await rest.request<V1ReplicaSetList>(
        'GET',
        `/apis/apps/v1/namespaces/${ns.name}/replicasets`,
      );
      const pods = await rest.request<V1PodList>('GET', podsPath(), {
        query: { labelSelector: 'app=owned' },
      });
      return (sets.items.length === 0 && pods.items.length === 0) || undefined;
    });
  });

  it('runs a memcached pod as a real memcached that answers on its pod IP', async () => {
    await createPod('cache', {
      containers: [{ name: 'memcached', image: 'memcached:1.6', args: ['-m', '32'] }],
    });
    const pod = await readyPod('cache');
    const ip = pod.status!.podIP!;
    expect(await ask(ip, 11211, 'version')).toMatch(/^VERSION 1\.\d+/);
    expect(await ask(ip, 11211, 'stats settings')).toContain('STAT');
    // The container's args reached the process.
    expect(processesOnPodIP(ip)[0]?.argv).toEqual(expect.arrayContaining(['-m', '32']));
  });

  it('restarts a redis pod whose process was killed, as a kubelet would report it', async () => {
    await createPod('kv', {
      containers: [{ name: 'redis', image: 'redis:7.2', ports: [{ containerPort: 6379 }] }],
    });
    const pod = await readyPod('kv');
    const ip = pod.status!.podIP!;
    expect(await ask(ip, 6379, 'PING')).toBe('+PONG');
    const [proc] = processesOnPodIP(ip);
    expect(proc?.argv[0]).toContain('redis-server');
    process.kill(proc!.pid, 'SIGKILL');
    await eventually('the pod to report the crash', async () => {
      const p = await rest.request<V1Pod>('GET', `${podsPath()}/kv`);
      const status = p.status?.containerStatuses?.[0];
      return status?.lastState?.terminated?.exitCode === 137 || undefined;
    });
    const restarted = await readyPod('kv', 1);
    expect(restarted.status?.containerStatuses?.[0]?.restartCount).toBe(1);
    expect(restarted.status?.podIP).toBe(ip);
    expect(await ask(ip, 6379, 'PING')).toBe('+PONG');
  });

  it('stops the process when its pod is deleted', async () => {
    await createPod('short', { containers: [{ name: 'redis', image: 'redis' }] });
    const ip = (await readyPod('short')).status!.podIP!;
    expect(processesOnPodIP(ip)).toHaveLength(1);
    await rest.request('DELETE', `${podsPath()}/short`);
    await eventually('the pod to be gone', async () => {
      try {
        await rest.request('GET', `${podsPath()}/short`);
        return undefined;
      } catch (error) {
        return error instanceof KubeApiError && error.status === 404;
      }
    });
    expect(processesOnPodIP(ip)).toHaveLength(0);
  });

  it('keeps a persistent redis value across a pod restart', async () => {
    await rest.request('POST', `/api/v1/namespaces/${ns.name}/persistentvolumeclaims`, {
      body: {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: 'data' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      },
    });
    const spec: V1Pod['spec'] = {
      containers: [
        {
          name: 'redis',
          image: 'redis:7.2',
          args: ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', '/data'],
          volumeMounts: [{ name: 'data', mountPath: '/data' }],
        },
      ],
      volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }],
    };
    await createPod('store', spec);
    const first = (await readyPod('store')).status!.podIP!;
    expect(await ask(first, 6379, 'SET greeting persisted')).toBe('+OK');
    await rest.request('DELETE', `${podsPath()}/store`);
    await eventually('the old pod to be gone', async () => {
      const pods = await rest.request<V1PodList>('GET', podsPath());
      return pods.items.length === 0 || undefined;
    });
    await createPod('store', spec);
    const second = (await readyPod('store')).status!.podIP!;
    expect(await ask(second, 6379, 'GET greeting')).toBe('$9');
    const value = await new Promise<string>((resolve, reject) => {
      const socket = new Socket();
      let text = '';
      socket.once('error', reject);
      socket.on('data', (c) => {
        text += c.toString();
        if (text.split('\r\n').length > 2) {
          socket.destroy();
          resolve(text.split('\r\n')[1]!);
        }
      });
      socket.connect(6379, second, () => socket.write('GET greeting\r\n'));
    });
    expect(value).toBe('persisted');
  });

  it('enforces RBAC and Pod Security admission', async () => {
    await rest.request('PATCH', `/api/v1/namespaces/${ns.name}`, {
      body: { metadata: { labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } } },
      contentType: 'application/merge-patch+json',
    });
    const privileged = createPod('root', {
      containers: [{ name: 'c', image: 'busybox', securityContext: { privileged: true } }],
    });
    await expect(privileged).rejects.toThrow(/violates PodSecurity "restricted:latest"/);

    const token = await rest.request<{ status: { token: string } }>(
      'POST',
      `/api/v1/namespaces/${ns.name}/serviceaccounts/default/token`,
      { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} } },
    );
    const kc = testKubeConfig();
    kc.loadFromOptions({
      clusters: kc.clusters,
      users: [{ name: 'sa', token: token.status.token }],
      contexts: [{ name: 'sa', cluster: kc.getCurrentCluster()!.name, user: 'sa' }],
      currentContext: 'sa',
    });
    const unprivileged = new KubeRest(kc);
    await expect(unprivileged.request('GET', '/api/v1/secrets')).rejects.toMatchObject({ status: 403 });
    unprivileged.close();
  });
});
