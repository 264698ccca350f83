// The shared-cluster bookkeeping of `useOperator` and `useCrds`: files of one operator side by side on one
// cluster each mark the CRDs they install, and the last to end removes them, never while another file's mark is
// on them or objects of their kinds live in a namespace another run still uses.

import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeApiError, KubeRest } from '../src/kube/rest.js';
import {
  eventually,
  type InProcessOperator,
  type TestNamespace,
  testKubeConfig,
  useCrds,
  useOperator,
  useTestNamespace,
} from '../src/testing/index.js';
import { joinCrds, leaveCrds, newCrdUser } from '../src/testing/operator-in-process.js';

// A group of this run's own, so another run on the same cluster never shares the CRD.
const group = `kit-${randomBytes(3).toString('hex')}.test.opkit.dev`;
const widgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `widgets.${group}` },
  spec: {
    group,
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};
const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${widgetCrd.metadata.name}`;
const FINALIZER = 'kit.test.opkit.dev/held';

interface Widget {
  metadata: { name: string; finalizers?: string[] };
}

let rest: KubeRest;
beforeAll(() => {
  rest = new KubeRest(testKubeConfig());
});
afterAll(() => rest?.close());

const present = async (path: string): Promise<boolean> =>
  rest.request('GET', path).then(
    () => true,
    (error: unknown) => {
      if (error instanceof KubeApiError && error.status === 404) return false;
      throw error;
    },
  );

/** A widget with a finalizer no operator removes: it holds its namespace until someone takes it off. */
async function createWidget(namespace: string): Promise<void> {
  await rest.request('POST', `/apis/${group}/v1/namespaces/${namespace}/widgets`, {
    body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'held', finalizers: [FINALIZER] } },
  });
}

const finalizersOf = async (namespace: string) =>
  (await rest.request<Widget>('GET', `/apis/${group}/v1/namespaces/${namespace}/widgets/held`)).metadata
    .finalizers;

const namespaceGone = (namespace: string) =>
  eventually(`namespace ${namespace} gone`, async () => !(await present(`/api/v1/namespaces/${namespace}`)), {
    timeoutMs: 60_000,
  });

/** An operator that does nothing: what is checked here is what the kit does around it. */
const idle = (): InProcessOperator => ({
  elected: Promise.resolve(),
  start: (signal) =>
    new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })),
});

const widgetsIn = (namespace: TestNamespace) => ({
  crds: [widgetCrd],
  namespace: () => namespace.name,
  create: idle,
});

/** The namespaces the side-by-side files' widgets hold. */
const held: string[] = [];

describe('two files side by side', () => {
  const first = useTestNamespace({ prefix: 'kit-first' });
  useOperator(widgetsIn(first));

  describe('the second, which ends first', () => {
    const second = useTestNamespace({ prefix: 'kit-second' });
    useOperator(widgetsIn(second));

    it('makes widgets in both files’ namespaces', async () => {
      await createWidget(first.name);
      await createWidget(second.name);
      held.push(first.name, second.name);
    });
  });

  it('leave the CRD and the first file’s widgets alone when the second ends', async () => {
    expect(await present(crdPath)).toBe(true);
    expect(await finalizersOf(held[0] ?? '')).toEqual([FINALIZER]);
  });
});

it('the last of them to end removes the CRD and the finalizers its objects kept', async () => {
  expect(await present(crdPath)).toBe(false);
  for (const namespace of held) await namespaceGone(namespace);
});

describe('another run keeping widgets in a namespace of its own', () => {
  const foreign = `kit-foreign-${randomBytes(3).toString('hex')}`;

  describe('a file that ends meanwhile', () => {
    const ns = useTestNamespace({ prefix: 'kit-file' });
    useOperator(widgetsIn(ns));

    it('sees the other run make its widget', async () => {
      await rest.request('POST', '/api/v1/namespaces', {
        body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: foreign } },
      });
      await createWidget(foreign);
    });
  });

  it('keeps the CRD and the other run’s widget while its namespace is active', async () => {
    expect(await present(crdPath)).toBe(true);
    expect(await finalizersOf(foreign)).toEqual([FINALIZER]);
    await rest.request('DELETE', `/api/v1/namespaces/${foreign}`);
  });

  describe('a file that ends once that namespace is being deleted', () => {
    const ns = useTestNamespace({ prefix: 'kit-file' });
    useOperator(widgetsIn(ns));

    it('finds the CRD installed', async () => {
      expect(await present(crdPath)).toBe(true);
    });
  });

  it('removes the CRD, taking the finalizer off the widget left', async () => {
    expect(await present(crdPath)).toBe(false);
    await namespaceGone(foreign);
  });
});

/** The namespaces whose widgets the file of `useCrds` left. */
const leftByProcessFile: string[] = [];

describe('a file whose operator runs as its own process (useCrds), beside one the kit runs', () => {
  const own = useTestNamespace({ prefix: 'kit-process' });
  useCrds([widgetCrd], { namespace: () => own.name });

  describe('the kit-run file, which ends first', () => {
    const ns = useTestNamespace({ prefix: 'kit-file' });
    useOperator(widgetsIn(ns));

    it('finds the CRD installed', async () => {
      expect(await present(crdPath)).toBe(true);
    });
  });

  it('keeps the CRD while the useCrds file runs', async () => {
    expect(await present(crdPath)).toBe(true);
    await createWidget(own.name);
    leftByProcessFile.push(own.name);
  });
});

it('removes the CRD once the useCrds file ends, taking the finalizer off the widget its test left', async () => {
  expect(await present(crdPath)).toBe(false);
  for (const namespace of leftByProcessFile) await namespaceGone(namespace);
});

describe('a file marking the CRD while the last one leaves', () => {
  it('keeps the CRD when the mark comes between the read and the delete', async () => {
    const leaving = newCrdUser();
    const arriving = newCrdUser();
    await joinCrds(rest, [widgetCrd], leaving);

    // The leaving file's client: its delete of the CRD waits until the arriving file has marked it.
    let arrived = false;
    class Interleaved extends KubeRest {
      override async request<T>(...[method, path, options]: Parameters<KubeRest['request']>): Promise<T> {
        if (method === 'DELETE' && path === crdPath && !arrived) {
          arrived = true;
          await joinCrds(rest, [widgetCrd], arriving);
        }
        return super.request<T>(method, path, options);
      }
    }
    const interleaved = new Interleaved(testKubeConfig());
    try {
      await leaveCrds(interleaved, [widgetCrd], leaving, { ownNamespaces: new Set() });
    } finally {
      interleaved.close();
    }
    expect(arrived).toBe(true);
    const live = await rest.request<{ metadata: { annotations?: Record<string, string> } }>('GET', crdPath);
    expect(Object.keys(live.metadata.annotations ?? {})).toEqual([arriving]);

    await leaveCrds(rest, [widgetCrd], arriving, { ownNamespaces: new Set() });
    expect(await present(crdPath)).toBe(false);
  });
});
