import type { Kind, KubeObject, Stored } from '@opkit/controller-runtime';
import {
  ApiError,
  type ListOptions,
  type ObjectList,
  type ObjectRef,
} from '@opkit/controller-runtime/client';
import { describe, expect, it } from 'vitest';
import { type CleanupOptions, cleanupIn } from './cleanup.js';
import type { Cluster } from './cluster.js';
import { OLM_V1, OLM_V1ALPHA1, type RunMark, runMetadata } from './olm-objects.js';

// `opkit cleanup` against objects in memory, as OLM leaves them: what it deletes is only what a run of
// `run bundle` for the package provably created.

interface StoredObject extends KubeObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string }[];
  };
  spec?: unknown;
  status?: unknown;
}

const key = (o: { apiVersion?: string; kind?: string; metadata?: { name?: string; namespace?: string } }) =>
  `${o.apiVersion}/${o.kind}/${o.metadata?.namespace ?? ''}/${o.metadata?.name}`;

function matches(labels: Record<string, string> | undefined, selector: string | undefined): boolean {
  if (!selector) return true;
  return selector.split(',').every((term) => {
    const [k = '', v] = term.split('=');
    return v === undefined ? labels?.[k] !== undefined : labels?.[k] === v;
  });
}

const refusal = (status: number, reason: string, message: string) =>
  new ApiError(status, reason, `${status} ${reason}: ${message}`, 'GET', '/', message);

/** An API server in memory: read, list by namespace and label, delete (a CRD takes its objects along). */
class FakeApi {
  readonly objects = new Map<string, StoredObject>();
  /** As for a user whose rights end at the namespace. */
  forbidAllNamespaces = false;
  constructor(objects: readonly StoredObject[]) {
    for (const o of objects) this.objects.set(key(o), structuredClone(o));
  }
  async get<T extends KubeObject>(type: Kind, name: string, namespace?: string): Promise<Stored<T>> {
    const found = this.objects.get(key({ ...type, metadata: { name, ...(namespace ? { namespace } : {}) } }));
    if (found === undefined) throw refusal(404, 'NotFound', 'not found');
    return structuredClone(found) as unknown as Stored<T>;
  }
  async list<T extends KubeObject>(
    { apiVersion, kind }: Kind,
    { namespace, labelSelector }: ListOptions = {},
  ): Promise<ObjectList<Stored<T>>> {
    if (namespace === undefined && this.forbidAllNamespaces) {
      throw refusal(403, 'Forbidden', 'forbidden');
    }
    const items = [...this.objects.values()].filter(
      (o) =>
        o.apiVersion === apiVersion &&
        o.kind === kind &&
        (namespace === undefined || o.metadata.namespace === namespace) &&
        matches(o.metadata.labels, labelSelector),
    );
    return {
      apiVersion,
      kind: `${kind}List`,
      metadata: {},
      items: structuredClone(items) as unknown as Stored<T>[],
    };
  }
  async delete({ name, namespace, ...type }: ObjectRef): Promise<void> {
    const k = key({ ...type, metadata: { name, ...(namespace ? { namespace } : {}) } });
    const found = this.objects.get(k);
    if (found === undefined) throw refusal(404, 'NotFound', 'not found');
    this.objects.delete(k);
    if (found.kind === 'CustomResourceDefinition') {
      const spec = found.spec as { group: string; names: { kind: string } };
      for (const [k2, o] of this.objects) {
        if (o.apiVersion.startsWith(`${spec.group}/`) && o.kind === spec.names.kind) this.objects.delete(k2);
      }
    }
  }
  async create(): Promise<never> {
    throw new Error('cleanup creates nothing');
  }
  async patch(): Promise<never> {
    throw new Error('cleanup patches nothing');
  }
  async apply(): Promise<never> {
    throw new Error('cleanup applies nothing');
  }
  has(apiVersion: string, kind: string, name: string, namespace?: string): boolean {
    return this.objects.has(
      key({ apiVersion, kind, metadata: { name, ...(namespace ? { namespace } : {}) } }),
    );
  }
}

const NS = 'ops';
const OLM_PACKAGE_LABEL = (pkg: string, ns: string) => `operators.coreos.com/${pkg}.${ns}`;

function subscription(
  name: string,
  pkg: string,
  options: { mark?: RunMark; csv?: string; source?: string; namespace?: string } = {},
): StoredObject {
  const namespace = options.namespace ?? NS;
  return {
    apiVersion: OLM_V1ALPHA1,
    kind: 'Subscription',
    metadata: {
      name,
      namespace,
      uid: `uid-sub-${namespace}-${name}`,
      ...(options.mark ? runMetadata(options.mark) : {}),
    },
    spec: {
      channel: 'stable',
      name: pkg,
      source: options.source ?? 'operatorhub',
      sourceNamespace: NS,
      installPlanApproval: 'Manual',
    },
    status: options.csv ? { installedCSV: options.csv, currentCSV: options.csv } : {},
  };
}

/** A CSV as OLM writes it: labelled with the package's operator label, owning its CRDs. */
function csv(
  name: string,
  pkg: string,
  crds: readonly string[],
  namespace = NS,
  labels: Record<string, string> = {},
): StoredObject {
  return {
    apiVersion: OLM_V1ALPHA1,
    kind: 'ClusterServiceVersion',
    metadata: { name, namespace, labels: { [OLM_PACKAGE_LABEL(pkg, namespace)]: '', ...labels } },
    spec: { customresourcedefinitions: { owned: crds.map((n) => ({ name: n })) } },
    status: { phase: 'Succeeded' },
  };
}

function crd(plural: string, group: string, kind: string): StoredObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: { group, names: { kind }, versions: [{ name: 'v1', served: true, storage: true }] },
  };
}

function custom(group: string, kind: string, name: string): StoredObject {
  return { apiVersion: `${group}/v1`, kind, metadata: { name, namespace: NS } };
}

function installPlan(name: string, csvs: readonly string[], owners: readonly StoredObject[]): StoredObject {
  return {
    apiVersion: OLM_V1ALPHA1,
    kind: 'InstallPlan',
    metadata: {
      name,
      namespace: NS,
      // OLM labels the plan with every package's operator label too; cleanup must not go by them.
      labels: Object.fromEntries(csvs.map((c) => [OLM_PACKAGE_LABEL(c.split('.')[0] ?? c, NS), ''])),
      ownerReferences: owners.map((o) => ({
        apiVersion: OLM_V1ALPHA1,
        kind: 'Subscription',
        name: o.metadata.name,
        uid: o.metadata.uid ?? '',
      })),
    },
    spec: { approved: true, clusterServiceVersionNames: [...csvs] },
  };
}

function catalogSource(name: string, metadata: Partial<StoredObject['metadata']> = {}): StoredObject {
  return {
    apiVersion: OLM_V1ALPHA1,
    kind: 'CatalogSource',
    metadata: { name, namespace: NS, ...metadata },
    spec: { sourceType: 'grpc', image: 'registry.example/catalog:1' },
  };
}

function operatorGroup(name: string, mark?: RunMark): StoredObject {
  return {
    apiVersion: OLM_V1,
    kind: 'OperatorGroup',
    metadata: { name, namespace: NS, ...(mark ? runMetadata(mark) : {}) },
    spec: {},
  };
}

const GADGETS = 'gadgets.gadget.example.com';
const WIDGETS = 'widgets.widget.example.com';
const MEMCACHEDS = 'memcacheds.cache.example.com';

/** Two packages an ordinary OperatorHub Subscription each installed, resolved into one InstallPlan. */
function ordinaryInstalls(): StoredObject[] {
  const gadget = subscription('gadget-operator', 'gadget-operator', { csv: 'gadget-operator.v1.0.0' });
  const widget = subscription('widget-operator', 'widget-operator', { csv: 'widget-operator.v1.0.0' });
  return [
    gadget,
    widget,
    csv('gadget-operator.v1.0.0', 'gadget-operator', [GADGETS]),
    csv('widget-operator.v1.0.0', 'widget-operator', [WIDGETS]),
    crd('gadgets', 'gadget.example.com', 'Gadget'),
    crd('widgets', 'widget.example.com', 'Widget'),
    installPlan('install-shared', ['gadget-operator.v1.0.0', 'widget-operator.v1.0.0'], [gadget, widget]),
    operatorGroup('ops-group'),
  ];
}

const MARK: RunMark = { package: 'memcached-operator', namespace: NS, run: 'run-1' };

/** What `run bundle` of memcached-operator created in the namespace, and the CSV OLM installed for it. */
function runBundleInstall(mark: RunMark = MARK): StoredObject[] {
  const sub = subscription('memcached-operator', 'memcached-operator', {
    mark,
    csv: 'memcached-operator.v0.1.0',
    source: 'memcached-operator-catalog',
  });
  return [
    sub,
    csv('memcached-operator.v0.1.0', 'memcached-operator', [MEMCACHEDS]),
    crd('memcacheds', 'cache.example.com', 'Memcached'),
    installPlan('install-memcached', ['memcached-operator.v0.1.0'], [sub]),
    catalogSource('memcached-operator-catalog', runMetadata(mark)),
    operatorGroup('opkit-run-bundle', mark),
  ];
}

async function runCleanup(
  objects: readonly StoredObject[],
  packageName: string,
  options: Partial<CleanupOptions> = {},
  forbidAllNamespaces = false,
): Promise<{ api: FakeApi; deleted: string[]; log: string[] }> {
  const api = new FakeApi(objects);
  api.forbidAllNamespaces = forbidAllNamespaces;
  const cluster: Cluster = { api, namespace: NS, kubeconfig: undefined };
  const log: string[] = [];
  const deleted = await cleanupIn(cluster, {
    packageName,
    crds: 'if-empty',
    deleteOperatorGroups: true,
    timeoutMs: 5_000,
    log: (line) => log.push(line),
    ...options,
  });
  return { api, deleted, log };
}

describe('opkit cleanup deletes only what run bundle created', () => {
  it('leaves a package an ordinary Subscription installed, and the package sharing its InstallPlan', async () => {
    const objects = ordinaryInstalls();
    for (const crds of ['if-empty', 'with-objects'] as const) {
      const { api, deleted, log } = await runCleanup(objects, 'gadget-operator', { crds });
      expect(deleted).toEqual([]);
      expect(api.objects.size).toBe(objects.length);
      expect(log).toEqual([
        "leaving Subscription ops/gadget-operator: not created by 'opkit run bundle' for package gadget-operator in ops (no opkit.dev/run-bundle label and run annotation of it)",
        "nothing to clean up: no objects of package gadget-operator created by 'opkit run bundle' in namespace ops",
      ]);
    }
  });

  it('removes its own install, but not an InstallPlan shared with another package, nor that package', async () => {
    const ours = runBundleInstall();
    const widget = subscription('widget-operator', 'widget-operator', { csv: 'widget-operator.v1.0.0' });
    const shared = installPlan(
      'install-shared',
      ['memcached-operator.v0.1.0', 'widget-operator.v1.0.0'],
      [ours[0] as StoredObject, widget],
    );
    const { api, deleted, log } = await runCleanup(
      [
        ...ours,
        widget,
        csv('widget-operator.v1.0.0', 'widget-operator', [WIDGETS]),
        crd('widgets', 'widget.example.com', 'Widget'),
        shared,
      ],
      'memcached-operator',
    );
    expect(deleted).toEqual([
      'Subscription ops/memcached-operator',
      `CustomResourceDefinition ${MEMCACHEDS}`,
      'ClusterServiceVersion ops/memcached-operator.v0.1.0',
      'InstallPlan ops/install-memcached',
      'CatalogSource ops/memcached-operator-catalog',
    ]);
    expect(log).toContain(
      'leaving InstallPlan ops/install-shared: shared with Subscription ops/widget-operator; its CSVs other than ours stay too',
    );
    expect(log).toContain(
      'leaving OperatorGroup ops/opkit-run-bundle: still used by Subscription ops/widget-operator',
    );
    expect([...api.objects.keys()].sort()).toEqual(
      [widget, shared, ...ours.filter((o) => o.kind === 'OperatorGroup')]
        .map(key)
        .concat([
          key(csv('widget-operator.v1.0.0', 'widget-operator', [])),
          key(crd('widgets', 'widget.example.com', 'Widget')),
        ])
        .sort(),
    );
  });

  it('removes everything it made when nothing else is there, the OperatorGroup last', async () => {
    const { api, deleted } = await runCleanup(runBundleInstall(), 'memcached-operator');
    expect(deleted.at(-1)).toBe('OperatorGroup ops/opkit-run-bundle');
    expect(api.objects.size).toBe(0);
    expect((await runCleanup([], 'memcached-operator')).deleted).toEqual([]);
  });

  it('never deletes a CRD that a CSV it did not follow owns; OLM copies of its own CSV do not count', async () => {
    const copy = csv('memcached-operator.v0.1.0', 'memcached-operator', [MEMCACHEDS], 'team-a', {
      'olm.copiedFrom': NS,
    });
    const own = await runCleanup([...runBundleInstall(), copy], 'memcached-operator');
    expect(own.deleted).toContain(`CustomResourceDefinition ${MEMCACHEDS}`);

    const elsewhere = csv('memcached-operator.v0.1.0', 'memcached-operator', [MEMCACHEDS], 'team-b');
    const { api, deleted, log } = await runCleanup([...runBundleInstall(), elsewhere], 'memcached-operator', {
      crds: 'with-objects',
    });
    expect(deleted).not.toContain(`CustomResourceDefinition ${MEMCACHEDS}`);
    expect(log).toContain(
      `leaving CustomResourceDefinition ${MEMCACHEDS}: also owned by ClusterServiceVersion team-b/memcached-operator.v0.1.0`,
    );
    expect(api.has('apiextensions.k8s.io/v1', 'CustomResourceDefinition', MEMCACHEDS)).toBe(true);

    // Not allowed to see other namespaces, it cannot tell: the CRD stays, the rest of its install goes.
    const blind = await runCleanup([...runBundleInstall(), elsewhere], 'memcached-operator', {}, true);
    expect(blind.log).toContain(
      `leaving CustomResourceDefinition ${MEMCACHEDS}: CSVs of other namespaces cannot be listed (forbidden): one may own it too`,
    );
    expect(blind.deleted).toContain('Subscription ops/memcached-operator');
    expect(blind.api.has('apiextensions.k8s.io/v1', 'CustomResourceDefinition', MEMCACHEDS)).toBe(true);
  });

  it('keeps a CRD with objects unless --delete-crds, which says how many go', async () => {
    const objects = [
      ...runBundleInstall(),
      custom('cache.example.com', 'Memcached', 'a'),
      custom('cache.example.com', 'Memcached', 'b'),
    ];
    const kept = await runCleanup(objects, 'memcached-operator');
    expect(kept.deleted).not.toContain(`CustomResourceDefinition ${MEMCACHEDS}`);
    expect(kept.log).toContain(
      `leaving CustomResourceDefinition ${MEMCACHEDS}: 2 Memcached objects still exist (--delete-crds deletes them with it)`,
    );
    expect(kept.api.objects.size).toBe(3);

    const gone = await runCleanup(objects, 'memcached-operator', { crds: 'with-objects' });
    expect(gone.log).toContain(
      `CustomResourceDefinition ${MEMCACHEDS} goes with its 2 Memcached objects (--delete-crds)`,
    );
    expect(gone.api.objects.size).toBe(0);

    const none = await runCleanup(runBundleInstall(), 'memcached-operator', { crds: 'keep' });
    expect(none.log).toContain(`leaving CustomResourceDefinition ${MEMCACHEDS}: --no-delete-crds`);
  });

  it('leaves what carries its label without the run annotation, and a catalog another Subscription uses', async () => {
    const labelOnly = catalogSource('memcached-operator-catalog', {
      labels: { 'opkit.dev/run-bundle': 'memcached-operator' },
    });
    const { deleted, log } = await runCleanup([labelOnly], 'memcached-operator');
    expect(deleted).toEqual([]);
    expect(log[0]).toMatch(
      /^leaving CatalogSource ops\/memcached-operator-catalog: not created by 'opkit run bundle'/,
    );

    // A run's annotation copied to another namespace's object proves nothing there.
    const copied = catalogSource('memcached-operator-catalog', runMetadata({ ...MARK, namespace: 'other' }));
    expect((await runCleanup([copied], 'memcached-operator')).deleted).toEqual([]);

    const user = subscription('gadget-operator', 'gadget-operator', {
      source: 'memcached-operator-catalog',
      namespace: 'team-a',
    });
    const used = await runCleanup([...runBundleInstall(), user], 'memcached-operator');
    expect(used.deleted).not.toContain('CatalogSource ops/memcached-operator-catalog');
    expect(used.log).toContain(
      'leaving CatalogSource ops/memcached-operator-catalog: still the catalog of Subscription team-a/gadget-operator',
    );
  });

  it('leaves its CatalogSource when Subscriptions of other namespaces cannot be listed', async () => {
    // A Subscription of another namespace, which a user whose rights end at the namespace cannot see.
    const user = subscription('gadget-operator', 'gadget-operator', {
      source: 'memcached-operator-catalog',
      namespace: 'team-a',
    });
    const { deleted, log, api } = await runCleanup(
      [...runBundleInstall(), user],
      'memcached-operator',
      {},
      true,
    );
    expect(deleted).toContain('Subscription ops/memcached-operator');
    expect(deleted).not.toContain('CatalogSource ops/memcached-operator-catalog');
    expect(log).toContain(
      'leaving CatalogSource ops/memcached-operator-catalog: Subscriptions of other namespaces cannot be listed (forbidden): one may use it',
    );
    expect(api.has('operators.coreos.com/v1alpha1', 'CatalogSource', 'memcached-operator-catalog', NS)).toBe(
      true,
    );
  });

  it('leaves a CRD that was there before the run, or that opkit deploy applied, though the run’s CSV owns it', async () => {
    const stamped = (o: StoredObject, creationTimestamp: string): StoredObject => ({
      ...o,
      metadata: { ...o.metadata, creationTimestamp } as StoredObject['metadata'],
    });
    const at = (crdTime: string) =>
      runBundleInstall().map((o) =>
        o.kind === 'Subscription'
          ? stamped(o, '2026-01-02T10:00:00Z')
          : o.kind === 'CustomResourceDefinition'
            ? stamped(o, crdTime)
            : o,
      );
    const before = await runCleanup(at('2026-01-01T09:00:00Z'), 'memcached-operator');
    expect(before.deleted).not.toContain(`CustomResourceDefinition ${MEMCACHEDS}`);
    expect(before.log).toContain(
      `leaving CustomResourceDefinition ${MEMCACHEDS}: created 2026-01-01T09:00:00.000Z, before Subscription ops/memcached-operator (2026-01-02T10:00:00.000Z): the run found it`,
    );
    expect(before.deleted).toContain('Subscription ops/memcached-operator');
    // One OLM created for the run, in the same second as the Subscription or later, goes.
    const after = await runCleanup(at('2026-01-02T10:00:00Z'), 'memcached-operator');
    expect(after.deleted).toContain(`CustomResourceDefinition ${MEMCACHEDS}`);

    const deployed = runBundleInstall().map((o) =>
      o.kind === 'CustomResourceDefinition'
        ? { ...o, metadata: { ...o.metadata, labels: { 'opkit.dev/deploy': 'run-0' } } }
        : o,
    );
    const kept = await runCleanup(deployed, 'memcached-operator', { crds: 'with-objects' });
    expect(kept.log).toContain(
      `leaving CustomResourceDefinition ${MEMCACHEDS}: applied by opkit deploy (opkit.dev/deploy): opkit undeploy removes it`,
    );
    expect(kept.api.has('apiextensions.k8s.io/v1', 'CustomResourceDefinition', MEMCACHEDS)).toBe(true);
  });
});
