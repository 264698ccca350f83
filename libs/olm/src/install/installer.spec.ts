import { describe, expect, it } from 'vitest';
import { installOlm, type KubeApi, OlmInstallError, uninstallOlm } from './installer.js';
import { collectionPath, objectPath } from './kube.js';
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
  };
  status?: unknown;
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
  return object;
}

class FakeKube implements KubeApi {
  readonly objects = new Map<string, Stored>();
  add(...objects: Stored[]): this {
    for (const o of objects) this.objects.set(objectPath(o), structuredClone(settled(o)));
    return this;
  }
  async get<T>(path: string): Promise<T | undefined> {
    return this.objects.get(path) as T | undefined;
  }
  async list<T>(path: string): Promise<T[]> {
    return [...this.objects.values()].filter((o) => collectionPath(o.apiVersion, o.kind) === path) as T[];
  }
  async create(_path: string, body: unknown): Promise<void> {
    this.add(body as Stored);
  }
  async delete(path: string): Promise<boolean> {
    return this.objects.delete(path);
  }
  close(): void {}
}

const manifests = olmInstallManifests({ version: '0.46.0', packageServer: false });
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
    const count = manifests.crds.length + manifests.resources.length;
    expect(kube.objects.size).toBe(count);
    for (const o of kube.objects.values())
      expect(o.metadata.labels?.[OLM_INSTALL_LABEL], o.kind).toBeTruthy();
    // What OLM makes for itself is not a user's object.
    kube.add({ apiVersion: 'operators.coreos.com/v1', kind: 'OLMConfig', metadata: { name: 'cluster' } });
    await uninstall(kube);
    expect([...kube.objects.keys()]).toEqual([]);
  });

  it("refuses while OLM's CRDs hold objects it did not create, unless --delete-crds, which counts them", async () => {
    const kube = (await installed()).add(...userInstall);
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
    expect([...kube.objects.keys()]).toEqual([objectPath(namespace)]);
  });
});
