import type { Kind, KubeObject, Stored as ServerObject } from '@opkit/controller-runtime';
import {
  ApiError,
  type ListOptions,
  type ObjectList,
  type ObjectRef,
} from '@opkit/controller-runtime/client';
import { describe, expect, it } from 'vitest';
import type { KubeApi } from './cluster-objects.js';
import { installOlm, OlmInstallError, uninstallOlm } from './installer.js';
import { olmInstallManifests } from './manifests.js';
import { OLM_INSTALL_LABEL } from './ownership.js';

// `olm install` and `olm uninstall` against an API server in memory: uninstall deletes only what install
// provably created, and never the objects OLM's CRDs hold for users unless told to.

interface Stored {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: { kind: string; name: string; controller?: boolean }[];
  };
  status?: unknown;
}

/** The REST path of an object, as the API server serves these kinds (the plural of each adds an `s`). */
function objectPath(o: {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
}): string {
  const prefix = o.apiVersion.includes('/') ? `/apis/${o.apiVersion}` : `/api/${o.apiVersion}`;
  const namespace = o.metadata.namespace === undefined ? '' : `/namespaces/${o.metadata.namespace}`;
  return `${prefix}${namespace}/${o.kind.toLowerCase()}s/${o.metadata.name}`;
}

function pathOf(target: ObjectRef): string {
  const { name, namespace } = target;
  return objectPath({ ...target, metadata: { name, ...(namespace === undefined ? {} : { namespace }) } });
}

const notFound = (method: string, path: string) =>
  new ApiError(404, 'NotFound', `${method} ${path}: 404 NotFound: not found`, method, path, 'not found');

/** An object OLM or Kubernetes makes for `owner`, which garbage collection deletes with it. */
function ownedBy(owner: Stored, apiVersion: string, kind: string, name: string): Stored {
  return {
    apiVersion,
    kind,
    metadata: {
      name,
      ...(owner.metadata.namespace === undefined ? {} : { namespace: owner.metadata.namespace }),
      ownerReferences: [{ kind: owner.kind, name: owner.metadata.name, controller: true }],
    },
  };
}

/**
 * What the cluster adds when an object is created: Kubernetes' defaults in every namespace; for a CSV, OLM's
 * OperatorCondition, and for the packageserver's its Deployment, Service, Secret and APIService.
 */
function madeFor(object: Stored): Stored[] {
  if (object.kind === 'Namespace') {
    const namespace = object.metadata.name;
    return [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kube-root-ca.crt', namespace } },
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace } },
    ];
  }
  if (object.kind !== 'ClusterServiceVersion' || object.metadata.labels?.['olm.copiedFrom']) return [];
  const condition = ownedBy(object, 'operators.coreos.com/v2', 'OperatorCondition', object.metadata.name);
  if (object.metadata.name !== 'packageserver') return [condition];
  const deployment = ownedBy(object, 'apps/v1', 'Deployment', 'packageserver');
  return [
    condition,
    deployment,
    ownedBy(deployment, 'apps/v1', 'ReplicaSet', 'packageserver-5d8f'),
    ownedBy(object, 'v1', 'Service', 'packageserver-service'),
    ownedBy(object, 'v1', 'Secret', 'packageserver-service-cert'),
    {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1.packages.operators.coreos.com' },
    },
  ];
}

/** What the controllers would report once the install is up: CRDs established, Deployments available. */
function settled(object: Stored): Stored {
  if (object.kind === 'CustomResourceDefinition') {
    return { ...object, status: { conditions: [{ type: 'Established', status: 'True' }] } };
  }
  if (object.kind === 'Deployment') {
    return {
      ...object,
      status: { availableReplicas: 1, conditions: [{ type: 'Available', status: 'True' }] },
    };
  }
  if (object.kind === 'ClusterServiceVersion') return { ...object, status: { phase: 'Succeeded' } };
  return object;
}

/** An API server in memory, with OLM's and Kubernetes' controllers reduced to what they add and delete. */
class FakeKube implements KubeApi {
  readonly objects = new Map<string, Stored>();
  add(...objects: Stored[]): this {
    for (const o of objects) this.objects.set(objectPath(o), structuredClone(settled(o)));
    return this;
  }
  async get<T extends KubeObject>(type: Kind, name: string, namespace?: string): Promise<ServerObject<T>> {
    const path = pathOf({ ...type, name, ...(namespace === undefined ? {} : { namespace }) });
    const found = this.objects.get(path);
    if (!found) throw notFound('GET', path);
    return found as unknown as ServerObject<T>;
  }
  async list<T extends KubeObject>(
    type: Kind,
    options: ListOptions = {},
  ): Promise<ObjectList<ServerObject<T>>> {
    const items = [...this.objects.values()].filter(
      (o) =>
        o.apiVersion === type.apiVersion &&
        o.kind === type.kind &&
        (options.namespace === undefined || o.metadata.namespace === options.namespace),
    );
    return { metadata: {}, items: items as unknown as ServerObject<T>[] };
  }
  async create<T extends KubeObject>(body: T): Promise<ServerObject<T>> {
    this.add(body as unknown as Stored);
    this.add(...madeFor(body as unknown as Stored));
    return body as ServerObject<T>;
  }
  async delete(target: ObjectRef): Promise<void> {
    if (!this.#remove(pathOf(target))) throw notFound('DELETE', pathOf(target));
  }
  /** Deletes with the namespace's content and the dependents, as the controllers would. */
  #remove(path: string): boolean {
    const object = this.objects.get(path);
    if (!object) return false;
    this.objects.delete(path);
    for (const other of [...this.objects.values()]) {
      const inNamespace = object.kind === 'Namespace' && other.metadata.namespace === object.metadata.name;
      const dependent = other.metadata.ownerReferences?.some(
        (o) =>
          o.kind === object.kind &&
          o.name === object.metadata.name &&
          other.metadata.namespace === object.metadata.namespace,
      );
      if (inNamespace || dependent) this.#remove(objectPath(other));
    }
    return true;
  }
}

/** The default install, with the packageserver. */
const manifests = olmInstallManifests({ version: '0.46.0' });
const quiet = { timeoutMs: 1_000, pollIntervalMs: 1 };

async function installed(): Promise<FakeKube> {
  const kube = new FakeKube();
  await installOlm(kube, manifests, { ...quiet, log: () => undefined });
  return kube;
}

async function uninstall(kube: FakeKube, deleteCrds?: boolean): Promise<string[]> {
  const log: string[] = [];
  await uninstallOlm(kube, manifests, {
    ...quiet,
    log: (line) => log.push(line),
    ...(deleteCrds === undefined ? {} : { deleteCrds }),
  });
  return log;
}

/** An operator a user installed with OLM: its Subscription, CSV and OperatorGroup. */
const userInstall: Stored[] = [
  {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'Subscription',
    metadata: { name: 'redis-operator', namespace: 'redis-system' },
  },
  {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: { name: 'redis-operator.v0.2.0', namespace: 'redis-system' },
  },
  {
    apiVersion: 'operators.coreos.com/v1',
    kind: 'OperatorGroup',
    metadata: { name: 'redis-system', namespace: 'redis-system' },
  },
];

describe('olm uninstall deletes only what olm install created', () => {
  it('marks everything it installs, and removes all of it when OLM holds nothing else', async () => {
    const kube = await installed();
    const own = [...manifests.crds, ...manifests.resources].map(objectPath);
    for (const path of own)
      expect(kube.objects.get(path)?.metadata.labels?.[OLM_INSTALL_LABEL], path).toBeTruthy();
    // What OLM makes for itself is not a user's object: its OLMConfig, the packageserver's OperatorCondition
    // (OLM makes one for every CSV), and what it deploys for the packageserver in the olm namespace.
    kube.add({ apiVersion: 'operators.coreos.com/v1', kind: 'OLMConfig', metadata: { name: 'cluster' } });
    expect([...kube.objects.keys()]).toContain(
      '/apis/operators.coreos.com/v2/namespaces/olm/operatorconditions/packageserver',
    );
    const log = await uninstall(kube);
    expect(log.filter((line) => line.startsWith('leaving'))).toEqual([]);
    expect([...kube.objects.keys()]).toEqual([]);
  });

  it("leaves a namespace of the install holding users' objects, and says what they are", async () => {
    const kube = await installed();
    const users: Stored[] = [
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'registry-pull', namespace: 'olm' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'olm' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'more-settings', namespace: 'olm' } },
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'tool', namespace: 'olm' } },
    ];
    kube.add(...users);
    const log = await uninstall(kube);
    expect(log.filter((line) => line.startsWith('leaving'))).toEqual([
      'leaving Namespace olm: it holds 1 Deployment, 2 ConfigMaps, 1 Secret not created by opkit olm install (Deployment olm/tool, ConfigMap olm/settings, ConfigMap olm/more-settings, …)',
    ]);
    expect(log).toContain('deleting Namespace operators');
    // The namespace and the users' objects stay; of the install's own objects in it, none.
    const left = [...kube.objects.keys()];
    expect(left).toContain('/api/v1/namespaces/olm');
    for (const user of users) expect(left).toContain(objectPath(user));
    expect(left).not.toContain('/apis/apps/v1/namespaces/olm/deployments/olm-operator');
    expect(left).not.toContain('/apis/apps/v1/namespaces/olm/deployments/packageserver');
    expect(left).not.toContain('/api/v1/namespaces/operators');
  });

  it("refuses while OLM's CRDs hold objects it did not create, unless --delete-crds, which counts them", async () => {
    const kube = (await installed()).add(...userInstall);
    // OLM's OperatorCondition for the user's CSV counts with the CSV, not on its own.
    kube.add(...madeFor(userInstall[1] as Stored));
    const before = [...kube.objects.keys()];
    const refused = await uninstall(kube).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OlmInstallError);
    expect((refused as OlmInstallError).code).toBe('OLM_IN_USE');
    expect((refused as Error).message).toBe(
      "OLM's CRDs hold 1 Subscription, 1 ClusterServiceVersion, 1 OperatorGroup that `opkit olm install` did not create (Subscription redis-system/redis-operator, ClusterServiceVersion redis-system/redis-operator.v0.2.0, OperatorGroup redis-system/redis-system), and would go with them: remove them first, or give --delete-crds to delete them too; nothing deleted",
    );
    expect([...kube.objects.keys()]).toEqual(before);

    const log = await uninstall(kube, true);
    expect(log[0]).toBe(
      "deleting 1 Subscription, 1 ClusterServiceVersion, 1 OperatorGroup not created by olm install, with OLM's CRDs (--delete-crds)",
    );
    expect([...kube.objects.keys()]).toEqual([]);
  });

  it('refuses an OLM it did not install, and leaves objects of the install it did not create', async () => {
    const foreign = new FakeKube().add(...manifests.crds, ...manifests.resources);
    const refused = await uninstall(foreign, true).catch((e: unknown) => e);
    expect((refused as OlmInstallError).code).toBe('OLM_NOT_OURS');
    expect((refused as Error).message).toMatch(
      /^OLM on this cluster was not installed by `opkit olm install` \(\S+ \S+ carries no opkit\.dev\/olm-install mark\): nothing deleted$/,
    );
    expect(foreign.objects.size).toBe(manifests.crds.length + manifests.resources.length);

    // The operators namespace was there before (someone else's): everything else goes, it stays.
    const kube = await installed();
    const namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'operators' } };
    kube.add(namespace);
    const log = await uninstall(kube);
    expect(log).toContain(
      'leaving Namespace operators: not created by opkit olm install (no opkit.dev/olm-install mark)',
    );
    const left = [...kube.objects.values()].filter((o) => o.metadata.namespace !== 'operators');
    expect(left.map(objectPath)).toEqual([objectPath(namespace)]);
  });
});
