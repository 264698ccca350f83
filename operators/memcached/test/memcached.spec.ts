import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger, findStatusCondition, isNotFound, type KubeObject } from '@opkit/controller-runtime';
import { POD, POD_DISRUPTION_BUDGET, type Pod, SERVICE } from '@opkit/controller-runtime/kinds';
import { RuntimeMetrics } from '@opkit/controller-runtime/metrics';
import {
  eventually,
  podProcesses,
  testKubeConfig,
  unscheduledPod,
  useOperator,
  useTestNamespace,
} from '@opkit/test-cluster/vitest';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { MEMCACHED, type Memcached } from '../src/index.js';
import { createMemcachedOperator } from '../src/operator.js';
import {
  type Deployment,
  MEMCACHED_IMAGE,
  memcached,
  memcachedOperator,
  memcachedTalk,
} from './support/operator.js';

// Operand pods must pass Pod Security "restricted": every test namespace enforces it.
const ns = useTestNamespace({
  prefix: 'memcached',
  labels: { 'pod-security.kubernetes.io/enforce': 'restricted' },
});
const operator = useOperator({ ...memcachedOperator, namespace: () => ns.name });
const api = () => operator.manager().apiClient;
const DEPLOYMENT = { apiVersion: 'apps/v1', kind: 'Deployment' } as const;
const get = (name: string) => api().get<Memcached>(MEMCACHED, name, ns.name);
const deployment = (name: string) => api().get<Deployment>(DEPLOYMENT, name, ns.name);
const gone = async (type: { apiVersion: string; kind: string }, name: string) => {
  try {
    await api().get(type, name, ns.name);
    return false;
  } catch (error) {
    return isNotFound(error);
  }
};

/** The events about Memcacheds in the test's namespace. */
async function memcachedEvents() {
  type Event = KubeObject & {
    reason: string;
    type: string;
    note?: string;
    regarding?: { kind?: string; name?: string };
    series?: { count: number };
  };
  const events = await api().list<Event>(
    { apiVersion: 'events.k8s.io/v1', kind: 'Event' },
    { namespace: ns.name },
  );
  return events.items.filter((e) => e.regarding?.kind === 'Memcached');
}

async function available(name: string, size: number): Promise<Memcached> {
  return eventually(
    `${name} to be Available with ${size} servers`,
    async () => {
      const cr = await get(name);
      const ok =
        findStatusCondition(cr.status?.conditions, 'Available')?.status === 'True' &&
        cr.status?.observedGeneration === cr.metadata.generation &&
        cr.status?.nodes?.length === size &&
        cr.status?.servers?.length === size;
      return ok ? cr : undefined;
    },
    { timeoutMs: 60_000 },
  );
}

describe('the Memcached operator', () => {
  it('walks through the guide: create with 3 replicas, serve keys, resize to 2 and back, delete with its finalizer', async () => {
    const sample = parse(
      readFileSync(join(import.meta.dirname, '../config/samples/cache_v1beta1_memcached.yaml'), 'utf8'),
    ) as Memcached;
    await api().create({ ...sample, metadata: { ...sample.metadata, namespace: ns.name } });
    const cr = await available('memcached-sample', 3);

    const d = await deployment('memcached-sample');
    expect(d.spec.replicas).toBe(3);
    expect(d.status?.readyReplicas).toBe(3);
    const pods = await api().list<KubeObject>(
      { apiVersion: 'v1', kind: 'Pod' },
      { namespace: ns.name, labelSelector: 'app.kubernetes.io/instance=memcached-sample' },
    );
    expect([...cr.status!.nodes!].sort()).toEqual(pods.items.map((p) => p.metadata.name).sort());
    expect(cr.metadata.finalizers).toEqual(['cache.example.com/finalizer']);
    expect(cr.status?.conditions?.map((c) => [c.type, c.status, c.reason])).toEqual(
      expect.arrayContaining([
        ['Available', 'True', 'AllServersReady'],
        ['Progressing', 'False', 'RolloutComplete'],
        ['Degraded', 'False', 'AsExpected'],
      ]),
    );

    // The servers are real memcached processes: store a key through one of them and read it back.
    const server = cr.status!.servers![0]!;
    expect(await memcachedTalk(server, ['set greeting 0 0 5', 'hello'], /STORED\r\n/)).toBe('STORED\r\n');
    expect(await memcachedTalk(server, ['get greeting'], /END\r\n/)).toBe(
      'VALUE greeting 0 5\r\nhello\r\nEND\r\n',
    );

    await api().patch(
      { ...MEMCACHED, name: 'memcached-sample', namespace: ns.name },
      { spec: { replicas: 2 } },
    );
    const resized = await available('memcached-sample', 2);
    expect(resized.status?.observedGeneration).toBe(2);
    expect((await deployment('memcached-sample')).spec.replicas).toBe(2);

    // Down and up again: the servers it had keep serving, so neither resize is reported as a loss.
    await api().patch(
      { ...MEMCACHED, name: 'memcached-sample', namespace: ns.name },
      { spec: { replicas: 3 } },
    );
    await available('memcached-sample', 3);
    const aboutSample = (await memcachedEvents()).filter((e) => e.regarding?.name === 'memcached-sample');
    // With its note, so that a warning says what the operator saw (`1 of 3 servers ready (…)`).
    expect(aboutSample.filter((e) => e.type === 'Warning').map((e) => `${e.reason}: ${e.note}`)).toEqual([]);
    // Creating the Deployment and resizing it were asked for: the one piece of news is that it came up.
    expect([...new Set(aboutSample.map((e) => e.reason))]).toEqual(['AllServersReady']);

    await api().delete({ ...MEMCACHED, name: 'memcached-sample', namespace: ns.name });
    await eventually('the Memcached to be gone', () => gone(MEMCACHED, 'memcached-sample'), {
      timeoutMs: 30_000,
    });
    // Deleting, and no report of finalizing written to an object about to vanish.
    const warned = (await memcachedEvents()).filter((e) => e.type === 'Warning');
    expect(warned.map((e) => e.reason)).toEqual(['Deleting']);
    // Owned objects follow through their owner references (the garbage collector rescans new kinds every 30 s).
    await eventually(
      'the Deployment and Service to be garbage-collected',
      async () =>
        (await gone(DEPLOYMENT, 'memcached-sample')) &&
        (await gone({ apiVersion: 'v1', kind: 'Service' }, 'memcached-sample')),
      { timeoutMs: 75_000, intervalMs: 500 },
    );
  });

  it('restores drift of the Deployment and keeps two Memcacheds in one namespace apart', async () => {
    await api().create(memcached('left', ns.name, { replicas: 2 }));
    await api().create(memcached('right', ns.name, { replicas: 1, memory: '32Mi' }));
    await available('left', 2);
    await available('right', 1);

    await api().patch(
      { ...DEPLOYMENT, name: 'left', namespace: ns.name },
      { spec: { replicas: 1 } },
      'merge',
      {
        fieldManager: 'someone-else',
      },
    );
    await eventually('replicas to be restored', async () => (await deployment('left')).spec.replicas === 2);
    await api().patch(
      { ...DEPLOYMENT, name: 'left', namespace: ns.name },
      [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'memcached:tampered' }],
      'json',
    );
    await eventually('the image to be restored', async () =>
      (await deployment('left')).spec.template.spec.containers[0]!.image.endsWith('memcached:1.6'),
    );
    // Without its managed-by label the Deployment leaves the operator's cache as if deleted; applied again, it
    // has the label back and is the same Deployment.
    const uid = (await deployment('left')).metadata.uid;
    await api().patch(
      { ...DEPLOYMENT, name: 'left', namespace: ns.name },
      { metadata: { labels: { 'app.kubernetes.io/managed-by': null } } },
      'merge',
      { fieldManager: 'someone-else' },
    );
    await eventually('the managed-by label to be restored', async () => {
      const d = await deployment('left');
      return (
        d.metadata.labels?.['app.kubernetes.io/managed-by'] === 'memcached-operator' && d.metadata.uid === uid
      );
    });

    const left = await deployment('left');
    const right = await deployment('right');
    expect(left.metadata.labels?.['app.kubernetes.io/instance']).toBe('left');
    expect(right.spec.template.spec.containers[0]!.args).toContain('--memory-limit=32');
    expect((await available('right', 1)).status?.nodes?.every((n) => n.startsWith('right-'))).toBe(true);
    expect((await available('left', 2)).status?.nodes?.every((n) => n.startsWith('left-'))).toBe(true);
  });

  it('caches only the Deployments, Services, PodDisruptionBudgets and pods it manages, each pod cut to what its status reads', async () => {
    // Another application's objects, created first: one watch delivers a namespace's objects in order, so once
    // the operator's own are in its cache, these would be too if it watched every object of their kinds.
    const theirs = { 'app.kubernetes.io/name': 'web', 'app.kubernetes.io/managed-by': 'someone-else' };
    await api().create(unscheduledPod('web-0', ns.name, theirs));
    await api().create({
      ...DEPLOYMENT,
      metadata: { name: 'web', namespace: ns.name, labels: theirs },
      spec: {
        replicas: 0,
        selector: { matchLabels: theirs },
        template: { metadata: { labels: theirs }, spec: unscheduledPod('web', ns.name).spec },
      },
    });
    await api().create({
      ...SERVICE,
      metadata: { name: 'web', namespace: ns.name, labels: theirs },
      spec: { selector: theirs, ports: [{ port: 80 }] },
    });
    await api().create({
      ...POD_DISRUPTION_BUDGET,
      metadata: { name: 'web', namespace: ns.name, labels: theirs },
      spec: { selector: { matchLabels: theirs }, maxUnavailable: 1 },
    });
    await api().create(memcached('cached', ns.name, { replicas: 2 }));
    await available('cached', 2);

    const cache = operator.manager().cache;
    for (const type of [DEPLOYMENT, SERVICE, POD_DISRUPTION_BUDGET]) {
      const names = (await cache.list(type, { namespace: ns.name })).items.map((o) => o.metadata.name);
      expect(names, type.kind).toEqual(['cached']);
    }
    const cached = await cache.list<Pod>(POD, { namespace: ns.name });
    expect(cached.items).toHaveLength(2);
    for (const pod of cached.items) {
      expect(pod.metadata.name).toMatch(/^cached-/);
      expect(pod.metadata.labels?.['app.kubernetes.io/managed-by']).toBe('memcached-operator');
      expect(pod.status?.podIP).toBeTruthy();
      expect(pod.spec).toBeUndefined();
      expect(pod.metadata.managedFields).toBeUndefined();
    }
  });

  it('serves the deprecated v1alpha1 through conversion, and a round trip through it loses nothing', async () => {
    const warnings: string[] = [];
    const transport = operator.manager().transport;
    const logWarning = transport.onWarning;
    transport.onWarning = (w) => warnings.push(w);
    const V1ALPHA1 = { apiVersion: 'cache.example.com/v1alpha1', kind: 'Memcached' } as const;
    type Old = KubeObject & { spec: Record<string, unknown> };
    try {
      await api().create<Old>({
        ...V1ALPHA1,
        metadata: { name: 'old', namespace: ns.name },
        spec: { size: 1, memoryLimitMB: 32 },
      });
      expect(warnings).toContain(
        'cache.example.com/v1alpha1 Memcached is deprecated; use cache.example.com/v1beta1 Memcached',
      );
    } finally {
      transport.onWarning = logWarning;
    }
    // Stored as v1beta1, with the schema's defaults and the defaulting webhook's threads.
    const stored = await get('old');
    expect(stored.spec).toEqual({
      replicas: 1,
      memory: '32Mi',
      port: { containerPort: 11211 },
      maxConnections: 1024,
      maxItemSize: '1m',
      threads: 4,
    });
    await available('old', 1);
    expect((await deployment('old')).spec.template.spec.containers[0]?.args).toContain('--memory-limit=32');

    await api().patch({ ...MEMCACHED, name: 'old', namespace: ns.name }, { spec: { memory: '1G' } });
    expect((await api().get<Old>(V1ALPHA1, 'old', ns.name)).spec.memoryLimitMB).toBe(954);
    // An update at v1alpha1 (read, change, write back; again if the operator wrote the status meanwhile).
    await eventually('an update at v1alpha1', async () => {
      const old = await api().get<Old>(V1ALPHA1, 'old', ns.name);
      return api().update<Old>({ ...old, spec: { ...old.spec, size: 2 } });
    });
    const after = await get('old');
    expect(after.spec).toMatchObject({ replicas: 2, memory: '1G' });
    expect(after.metadata.annotations ?? {}).toEqual({});
    await available('old', 2);
  });

  it('rejects invalid specs with the schema message', async () => {
    const rejected = async (spec: Partial<Memcached['spec']>) => {
      try {
        await api().create(memcached('invalid', ns.name, spec));
        return 'accepted';
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(await rejected({ replicas: 0 })).toContain(
      'spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1',
    );
    expect(await rejected({ replicas: 4 })).toContain(
      'spec.replicas: Invalid value: 4: spec.replicas in body should be less than or equal to 3',
    );
    // A rule across fields with quantity arithmetic: the validating webhook's.
    expect(await rejected({ memory: '1Gi', resources: { limits: { memory: '1Gi' } } })).toContain(
      'admission webhook "vmemcached-v1beta1.kb.io" denied the request: Memcached.cache.example.com "invalid" is invalid: spec.memory: Invalid value: "1Gi": with 32Mi for connections it must fit in resources.limits.memory (1Gi)',
    );
  });

  it('reports servers that never become ready as Available=False and Progressing, without a crash loop of its own', async () => {
    await api().create(memcached('broken', ns.name, { replicas: 1, extraArgs: ['--no-such-option'] }));
    const cr = await eventually(
      'Available=False with a reason',
      async () => {
        const c = await get('broken');
        const a = findStatusCondition(c.status?.conditions, 'Available');
        return a?.status === 'False' && /CrashLoopBackOff/.test(a.message) ? c : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(findStatusCondition(cr.status?.conditions, 'Available')?.reason).toBe('NoServersReady');
    expect(findStatusCondition(cr.status?.conditions, 'Progressing')).toMatchObject({
      status: 'True',
      reason: 'RollingOut',
    });
    expect(cr.status?.servers).toEqual([]);
  });

  it('warns when a server it had crashes, once, and is Available again when it is back', async () => {
    await api().create(memcached('crash', ns.name, { replicas: 2 }));
    const serving = await available('crash', 2);
    const victim = serving.status?.nodes?.[0] ?? '';
    const pod = await api().get<Pod>(POD, victim, ns.name);
    const server = podProcesses(pod.metadata.uid ?? '').find((p) => p.argv[0] === 'memcached');
    if (!server) throw new Error(`no memcached process in pod ${victim}`);
    process.kill(server.pid, 'SIGKILL');

    // The pod stays, its container restarts: the server it listed as serving is lost until it is back.
    /** The events about the Memcached, each with how many times it was recorded (a repeat joins a series). */
    const aboutCrash = async () =>
      (await memcachedEvents())
        .filter((e) => e.regarding?.name === 'crash')
        .map((e) => `${e.type} ${e.reason}: ${e.note} (${e.series?.count ?? 1})`);
    await eventually(
      'a warning that a server was lost',
      async () =>
        (await aboutCrash()).some((e) => e.startsWith('Warning ServersNotReady: 1 of 2 servers ready')),
      { timeoutMs: 30_000 },
    );
    const back = await available('crash', 2);
    expect(back.status?.nodes).toEqual(serving.status?.nodes);
    // One warning, recorded once (its note may name what the restarting container waits for).
    const warnings = (await aboutCrash()).filter((e) => e.startsWith('Warning'));
    expect(warnings).toEqual([
      expect.stringMatching(/^Warning ServersNotReady: 1 of 2 servers ready.* \(1\)$/),
    ]);
  });

  it('writes nothing when nothing changed, with quantities the API server stores in another form', async () => {
    // Stored as 1Gi, 500m and 64Mi: equal values, other text.
    const resources = { limits: { memory: '1024Mi', cpu: '0.5' }, requests: { memory: 67108864 } };
    await api().create(memcached('steady', ns.name, { replicas: 2, resources }));
    await available('steady', 2);
    // A second operator instance (as after a restart) reconciles the converged Memcached from scratch.
    const metrics = new RuntimeMetrics({ processMetrics: false });
    const second = createMemcachedOperator({
      kubeConfig: testKubeConfig(),
      namespaces: [ns.name],
      namespace: ns.name,
      // Its webhooks stay off: the first instance serves them on the port the API server calls.
      env: { RELATED_IMAGE_MEMCACHED: MEMCACHED_IMAGE, ENABLE_WEBHOOKS: 'false' },
      logger: createLogger({ level: 'error' }),
      managerOptions: { metrics },
    });
    const stop = new AbortController();
    const running = second.start(stop.signal);
    await eventually('the second instance to reconcile', async () => {
      const total =
        (await metrics.reconcileTotal.get()).values.find((v) => v.labels.result === 'success')?.value ?? 0;
      return total >= 1;
    });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await metrics.requestCount({ writesOnly: true })).toBe(0);
    stop.abort();
    await running;
  });

  it('installs its alert rules in its own namespace when the PrometheusRule API exists', async () => {
    // The Prometheus Operator's API, reduced to what matters here: a namespaced PrometheusRule kind.
    await api().apply(
      {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'prometheusrules.monitoring.coreos.com' },
        spec: {
          group: 'monitoring.coreos.com',
          scope: 'Namespaced',
          names: {
            plural: 'prometheusrules',
            singular: 'prometheusrule',
            kind: 'PrometheusRule',
            listKind: 'PrometheusRuleList',
          },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
            },
          ],
        },
      } as KubeObject,
      { fieldManager: 'memcached-test' },
    );
    await eventually('the PrometheusRule API to be served', async () => {
      await api().list(
        { apiVersion: 'monitoring.coreos.com/v1', kind: 'PrometheusRule' },
        { namespace: ns.name },
      );
      return true;
    });
    const second = createMemcachedOperator({
      kubeConfig: testKubeConfig(),
      namespaces: [ns.name],
      namespace: ns.name,
      env: { RELATED_IMAGE_MEMCACHED: MEMCACHED_IMAGE, ENABLE_WEBHOOKS: 'false' },
      logger: createLogger({ level: 'error' }),
      managerOptions: { metrics: new RuntimeMetrics({ processMetrics: false }) },
    });
    const stop = new AbortController();
    const running = second.start(stop.signal);
    const rule = await eventually('the operator’s PrometheusRule', async () =>
      api().get<KubeObject & { spec: { groups: { rules: { alert?: string; record?: string }[] }[] } }>(
        { apiVersion: 'monitoring.coreos.com/v1', kind: 'PrometheusRule' },
        'memcached-operator-rules',
        ns.name,
      ),
    );
    const rules = rule.spec.groups.flatMap((g) => g.rules);
    expect(rules.map((r) => r.alert ?? r.record)).toEqual(
      expect.arrayContaining(['memcached_operator_up_total', 'MemcachedOperatorDown']),
    );
    stop.abort();
    await running;

    // Restarted, it finds its rules installed and writes nothing.
    const metrics = new RuntimeMetrics({ processMetrics: false });
    const lines: string[] = [];
    const restarted = createMemcachedOperator({
      kubeConfig: testKubeConfig(),
      namespaces: [ns.name],
      namespace: ns.name,
      env: { RELATED_IMAGE_MEMCACHED: MEMCACHED_IMAGE, ENABLE_WEBHOOKS: 'false' },
      logger: createLogger({ level: 'info', sink: (line) => lines.push(line) }),
      managerOptions: { metrics },
    });
    const stopRestarted = new AbortController();
    const runningRestarted = restarted.start(stopRestarted.signal);
    await eventually('the restarted operator to check its rules', async () =>
      lines.some((line) => line.includes('PrometheusRule memcached-operator-rules unchanged')),
    );
    expect(await metrics.requestCount({ writesOnly: true })).toBe(0);
    stopRestarted.abort();
    await runningRestarted;
  });

  it('exposes reconcile metrics and counts forced resizes', async () => {
    await api().create(memcached('metered', ns.name, { replicas: 2 }));
    await available('metered', 2);
    for (let i = 0; i < 3; i++) {
      await api().patch({ ...DEPLOYMENT, name: 'metered', namespace: ns.name }, { spec: { replicas: 3 } });
      await eventually(
        'the size to be restored',
        async () => (await deployment('metered')).spec.replicas === 2,
      );
    }
    const port = operator.manager().metricsAddress!.port;
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const counter = Number(text.match(/^memcached_deployment_size_undesired_count_total (\d+)/m)?.[1]);
    expect(counter).toBeGreaterThanOrEqual(3);
    expect(
      Number(
        text.match(
          /^controller_runtime_reconcile_total\{controller="memcached",result="success"\} (\d+)/m,
        )?.[1],
      ),
    ).toBeGreaterThan(3);
  });
});
