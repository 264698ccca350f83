import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Socket } from 'node:net';
import { promisify } from 'node:util';
import type {
  V1Deployment,
  V1EndpointSliceList,
  V1Node,
  V1Pod,
  V1PodList,
  V1Service,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type LocalCluster, startCluster } from '../src/cluster.js';
import { KubeRest } from '../src/kube/rest.js';
import { eventually } from '../src/testing/index.js';

const run = promisify(execFile);

// The images the cluster builds from Debian packages and serves from its registry under their usual names.
const MEMCACHED = 'memcached:1.6';
const REDIS = 'redis:7.0';
const BUSYBOX = 'busybox:1.35';
const NODE = 'docker.io/opkit/node:24';

let cluster: LocalCluster;
let rest: KubeRest;
let ns = '';

beforeAll(async () => {
  cluster = await startCluster({ onProgress: (line) => process.env.OPKIT_TEST_VERBOSE && console.log(line) });
  rest = new KubeRest(cluster.kubeConfig);
});
afterAll(async () => {
  rest?.close();
  await cluster?.stop();
});
beforeEach(async () => {
  ns = `real-${randomBytes(3).toString('hex')}`;
  await rest.request('POST', '/api/v1/namespaces', {
    body: {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: ns, labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } },
    },
  });
  await eventually('the default ServiceAccount', () =>
    rest.request('GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`),
  );
});

const kubectl = async (...args: string[]) =>
  (await run('kubectl', ['--kubeconfig', cluster.kubeconfigPath, '-n', ns, ...args], { timeout: 60_000 }))
    .stdout;

/** Sends one line to host:port and resolves with everything answered until `until` appears. */
function ask(host: string, port: number, line: string, until = '\r\n'): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = new Socket();
    let answer = '';
    socket.setTimeout(3000, () => socket.destroy(new Error(`no answer from ${host}:${port}`)));
    socket.once('error', reject);
    socket.on('data', (chunk) => {
      answer += chunk.toString();
      if (answer.includes(until)) {
        socket.destroy();
        resolve(answer);
      }
    });
    socket.connect(port, host, () => socket.write(`${line}\r\n`));
  });
}

/** The restricted Pod Security profile, with a numeric non-root user. */
const restricted = (uid: number) => ({
  pod: { runAsNonRoot: true, runAsUser: uid, runAsGroup: uid, seccompProfile: { type: 'RuntimeDefault' } },
  container: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
});

async function createPod(name: string, spec: V1Pod['spec'], labels: Record<string, string> = {}) {
  await rest.request('POST', `/api/v1/namespaces/${ns}/pods`, {
    body: { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels }, spec },
  });
}

async function readyPod(name: string, timeoutMs = 60_000): Promise<V1Pod> {
  return eventually(
    `pod ${name} to be Ready`,
    async () => {
      const pod = await rest.request<V1Pod>('GET', `/api/v1/namespaces/${ns}/pods/${name}`);
      return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? pod : undefined;
    },
    { timeoutMs },
  );
}

/** A busybox pod that stays up, for looking at the cluster from inside. */
async function toolbox(name = 'toolbox'): Promise<V1Pod> {
  const { pod, container } = restricted(65534);
  await createPod(name, {
    securityContext: pod,
    containers: [{ name: 'sh', image: BUSYBOX, command: ['sleep', '3600'], securityContext: container }],
    terminationGracePeriodSeconds: 0,
  });
  return readyPod(name);
}

describe('a real node', () => {
  it('is Ready with containerd 2 as its runtime', async () => {
    const wide = await kubectl('get', 'nodes', '-o', 'wide');
    expect(wide).toMatch(/opkit-worker\s+Ready\b.*containerd:\/\/2\./);
    const node = await rest.request<V1Node>('GET', '/api/v1/nodes/opkit-worker');
    expect(node.status?.nodeInfo?.containerRuntimeVersion).toMatch(/^containerd:\/\/2\.\d+\.\d+/);
    expect(node.status?.addresses).toContainEqual({ type: 'InternalIP', address: cluster.realNode?.ip });
  });

  it('runs a restricted memcached Deployment reachable by pod IP, ClusterIP and DNS name', async () => {
    const labels = { app: 'cache' };
    const { pod, container } = restricted(11211);
    await rest.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
      body: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'cache' },
        spec: {
          replicas: 2,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: {
              securityContext: pod,
              containers: [
                {
                  name: 'memcached',
                  image: MEMCACHED,
                  command: ['memcached'],
                  args: ['-m', '32'],
                  ports: [{ name: 'memcached', containerPort: 11211 }],
                  readinessProbe: { tcpSocket: { port: 'memcached' }, periodSeconds: 2 },
                  securityContext: container,
                },
              ],
            },
          },
        },
      },
    });
    const service = await rest.request<V1Service>('POST', `/api/v1/namespaces/${ns}/services`, {
      body: {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'cache' },
        spec: { selector: labels, ports: [{ port: 11211, targetPort: 'memcached' }] },
      },
    });
    await eventually(
      '2 available replicas',
      async () => {
        const d = await rest.request<V1Deployment>('GET', `/apis/apps/v1/namespaces/${ns}/deployments/cache`);
        return d.status?.availableReplicas === 2 || undefined;
      },
      { timeoutMs: 60_000 },
    );
    const pods = await rest.request<V1PodList>('GET', `/api/v1/namespaces/${ns}/pods`, {
      query: { labelSelector: 'app=cache' },
    });
    const ips = pods.items.map((p) => p.status?.podIP ?? '');
    for (const ip of ips) {
      expect(ip).toMatch(/^198\.18\.\d+\.\d+$/);
      expect(await ask(ip, 11211, 'version')).toMatch(/^VERSION 1\.6\./);
    }
    const slices = await eventually('EndpointSlices with both pods', async () => {
      const list = await rest.request<V1EndpointSliceList>(
        'GET',
        `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`,
        { query: { labelSelector: 'kubernetes.io/service-name=cache' } },
      );
      const addresses = list.items.flatMap((s) => (s.endpoints ?? []).flatMap((e) => e.addresses));
      return addresses.length === 2 ? addresses : undefined;
    });
    expect(slices.sort()).toEqual([...ips].sort());

    const clusterIP = service.spec?.clusterIP ?? '';
    expect(clusterIP).toMatch(/^198\.19\.\d+\.\d+$/);
    expect(await eventually('the ClusterIP to answer', () => ask(clusterIP, 11211, 'version'))).toMatch(
      /^VERSION/,
    );
    await toolbox();
    const fromPod = await eventually('memcached by DNS name from another pod', async () =>
      kubectl(
        'exec',
        'toolbox',
        '--',
        'sh',
        '-c',
        `echo version | nc -w 2 cache.${ns}.svc.cluster.local 11211`,
      ),
    );
    expect(fromPod).toMatch(/^VERSION 1\.6\./);
  });

  it('runs HTTP readiness and exec liveness probes, restarts with back-off, serves logs and exec', async () => {
    const { pod, container } = restricted(65534);
    await createPod('probed', {
      securityContext: pod,
      containers: [
        {
          name: 'web',
          image: BUSYBOX,
          command: [
            'sh',
            '-c',
            'echo "start $(date +%s%N)"; mkdir -p /tmp/www; echo ok > /tmp/www/index.html; touch /tmp/alive; httpd -f -p 8080 -h /tmp/www',
          ],
          ports: [{ containerPort: 8080 }],
          readinessProbe: { httpGet: { path: '/index.html', port: 8080 }, periodSeconds: 1 },
          livenessProbe: { exec: { command: ['cat', '/tmp/alive'] }, periodSeconds: 1, failureThreshold: 1 },
          securityContext: container,
        },
      ],
    });
    await readyPod('probed');
    expect(await kubectl('exec', 'probed', '--', 'cat', '/tmp/www/index.html')).toBe('ok\n');
    const firstLog = await kubectl('logs', 'probed');
    expect(firstLog).toMatch(/^start \d+/);

    // The readiness probe really runs: without the page, the pod is no longer Ready.
    await kubectl('exec', 'probed', '--', 'rm', '/tmp/www/index.html');
    await eventually('the pod to become unready', async () => {
      const p = await rest.request<V1Pod>('GET', `/api/v1/namespaces/${ns}/pods/probed`);
      return p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'False') || undefined;
    });
    // The liveness probe really runs: without the file, the container is restarted.
    await kubectl('exec', 'probed', '--', 'rm', '/tmp/alive');
    const restarted = await eventually(
      'a restart after the liveness probe failed',
      async () => {
        const p = await rest.request<V1Pod>('GET', `/api/v1/namespaces/${ns}/pods/probed`);
        const status = p.status?.containerStatuses?.[0];
        return (status?.restartCount ?? 0) >= 1 && status?.ready ? p : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(restarted.status?.containerStatuses?.[0]?.lastState?.terminated).toBeDefined();
    expect(await kubectl('logs', 'probed', '--previous')).toBe(firstLog);
  });

  it('restarts a container that exits with back-off and shows its last output', async () => {
    const { pod, container } = restricted(65534);
    await createPod('crashing', {
      securityContext: pod,
      containers: [
        {
          name: 'c',
          image: BUSYBOX,
          command: ['sh', '-c', 'echo "attempt at $(date +%s)"; exit 3'],
          securityContext: container,
        },
      ],
    });
    // The kubelet backs off: it says so in an event, and the status between attempts reads either
    // waiting/CrashLoopBackOff or, until its next status sync, the attempt that just ended.
    const waiting = await eventually(
      'CrashLoopBackOff',
      async () => {
        const p = await rest.request<V1Pod>('GET', `/api/v1/namespaces/${ns}/pods/crashing`);
        const status = p.status?.containerStatuses?.[0];
        if (!status || status.restartCount < 1) return undefined;
        if (status.state?.waiting?.reason === 'CrashLoopBackOff') return status;
        const events = await rest.request<{ items: { reason?: string }[] }>(
          'GET',
          `/api/v1/namespaces/${ns}/events`,
          { query: { fieldSelector: 'involvedObject.name=crashing,reason=BackOff' } },
        );
        return events.items.length > 0 && status.state?.terminated ? status : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(waiting.restartCount).toBeGreaterThanOrEqual(1);
    expect(waiting.lastState?.terminated?.exitCode).toBe(3);
    // The last attempt's output: `--previous` while the kubelet waits to restart, or the container's own log
    // while its status still shows the attempt that ended. Between two attempts the kubelet may already be
    // removing the older one's log: ask again then.
    const previous = await eventually('the last attempt’s log', async () => {
      for (const args of [['--previous'], []]) {
        const log = await kubectl('logs', 'crashing', ...args).catch(() => '');
        if (/^attempt at \d+\n$/.test(log)) return log;
      }
      return undefined;
    });
    expect(previous).toMatch(/^attempt at \d+\n$/);
  });

  it('keeps a PVC-backed redis value across pod deletion', async () => {
    await rest.request('POST', `/api/v1/namespaces/${ns}/persistentvolumeclaims`, {
      body: {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: 'data' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      },
    });
    const { pod, container } = restricted(999);
    const spec: V1Pod['spec'] = {
      securityContext: { ...pod, fsGroup: 999 },
      containers: [
        {
          name: 'redis',
          image: REDIS,
          command: ['redis-server'],
          // Debian's redis keeps protected mode on without a config file (the official image's build turns
          // it off), and this server has no password.
          args: [
            '--appendonly',
            'yes',
            '--appendfsync',
            'always',
            '--dir',
            '/data',
            '--protected-mode',
            'no',
          ],
          ports: [{ containerPort: 6379 }],
          readinessProbe: { exec: { command: ['redis-cli', 'ping'] }, periodSeconds: 1 },
          volumeMounts: [{ name: 'data', mountPath: '/data' }],
          securityContext: container,
        },
      ],
      volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }],
    };
    await createPod('store', spec);
    const first = (await readyPod('store')).status?.podIP ?? '';
    expect(await ask(first, 6379, 'SET greeting persisted')).toBe('+OK\r\n');
    await rest.request('DELETE', `/api/v1/namespaces/${ns}/pods/store`);
    await eventually('the old pod to be gone', async () => {
      const pods = await rest.request<V1PodList>('GET', `/api/v1/namespaces/${ns}/pods`);
      return pods.items.length === 0 || undefined;
    });
    await createPod('store', spec);
    const second = (await readyPod('store')).status?.podIP ?? '';
    expect(await ask(second, 6379, 'GET greeting', 'persisted')).toBe('$9\r\npersisted\r\n');
  });

  it('lets a pod reach the API server through the kubernetes Service by DNS name, with its token', async () => {
    // What an in-cluster client does: the service-account token and CA mounted into the pod, the API server
    // at kubernetes.default.svc (cluster DNS → ClusterIP → kube-proxy → the API server on the node IP).
    const script = `
      const fs = require('node:fs');
      const dir = '/var/run/secrets/kubernetes.io/serviceaccount';
      const req = require('node:https').request({
        host: 'kubernetes.default.svc', port: 443, method: 'POST',
        path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
        ca: fs.readFileSync(dir + '/ca.crt'),
        headers: { authorization: 'Bearer ' + fs.readFileSync(dir + '/token', 'utf8'), 'content-type': 'application/json' },
      }, (res) => { let body = ''; res.on('data', (c) => (body += c)); res.on('end', () => console.log(res.statusCode, JSON.parse(body).status.userInfo.username)); });
      req.end(JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }));`;
    const { pod, container } = restricted(65532);
    await createPod('whoami', {
      securityContext: pod,
      restartPolicy: 'Never',
      containers: [{ name: 'node', image: NODE, args: ['-e', script], securityContext: container }],
    });
    await eventually(
      'the pod to succeed',
      async () => {
        const p = await rest.request<V1Pod>('GET', `/api/v1/namespaces/${ns}/pods/whoami`);
        if (p.status?.phase === 'Failed') throw new Error(await kubectl('logs', 'whoami'));
        return p.status?.phase === 'Succeeded' || undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(await kubectl('logs', 'whoami')).toBe(`201 system:serviceaccount:${ns}:default\n`);
  });

  it('refuses pods that break the restricted profile and enforces RBAC', async () => {
    const privileged = createPod('root', {
      containers: [{ name: 'c', image: BUSYBOX, securityContext: { privileged: true } }],
    });
    await expect(privileged).rejects.toThrow(/violates PodSecurity "restricted:latest"/);

    const token = await rest.request<{ status: { token: string } }>(
      'POST',
      `/api/v1/namespaces/${ns}/serviceaccounts/default/token`,
      { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} } },
    );
    const kc = cluster.kubeConfig;
    const sa = new (kc.constructor as new () => typeof kc)();
    sa.loadFromOptions({
      clusters: kc.clusters,
      users: [{ name: 'sa', token: token.status.token }],
      contexts: [{ name: 'sa', cluster: kc.clusters[0]?.name ?? '', user: 'sa' }],
      currentContext: 'sa',
    });
    const unprivileged = new KubeRest(sa);
    await expect(unprivileged.request('GET', '/api/v1/secrets')).rejects.toMatchObject({ status: 403 });
    unprivileged.close();
  });
});
