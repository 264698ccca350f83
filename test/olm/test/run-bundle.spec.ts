import { join } from 'node:path';
import { KubeRest, type LocalCluster, startCluster, workspaceRoot } from '@opkit/test-cluster';
import { eventually, pushReleasedOperatorImages } from '@opkit/test-cluster/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Condition, KubeObjectMeta } from '../src/kube-types.js';
import { type ClusterServiceVersion, type InstallPlan, OLM_V1ALPHA1 } from '../src/olm-types.js';
import { explainedBy, operatorPod } from '../src/operator-pod.js';
import { type CatalogServer, opkit, pushBundleImages, serveCatalog } from '../src/opkit-cli.js';
import { createInstallNamespace, getOptional, subscribe, waitForCsvSucceeded } from '../src/subscriptions.js';
import { type SyntheticPackage, writeSyntheticCatalog } from '../src/synthetic-catalog.js';

// `opkit run bundle`, `run bundle-upgrade` and `cleanup` against real OLM, as a developer uses them: the
// released Memcached bundle images (and the operator images of their release commits) in the cluster's
// registry, installed, upgraded and removed with nothing but the CLI.

const NAMESPACE = 'memcached-run';
const CRD = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/memcacheds.cache.example.com';
const MEMCACHEDS = `/apis/cache.example.com/v1alpha1/namespaces/${NAMESPACE}/memcacheds`;

let cluster: LocalCluster;
let rest: KubeRest;
let bundles: string;

beforeAll(async () => {
  cluster = await startCluster({ olm: true });
  rest = new KubeRest(cluster.kubeConfig);
  const registry = cluster.registry;
  if (!registry) throw new Error('the cluster has no registry (no real node)');
  await pushReleasedOperatorImages({
    repoRoot: workspaceRoot,
    operator: 'operators/memcached',
    registry,
    repository: 'memcached-operator',
    versions: ['0.1.0', '0.2.0'],
    fromReleaseCommits: ['0.1.0', '0.2.0'],
    layoutDir: join(cluster.dir, 'operator-images'),
  });
  await pushBundleImages({ registry, workDir: join(cluster.dir, 'bundle-images') });
  bundles = `${registry}/opkit/memcached-operator-bundle`;
  await rest.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } },
  });
});

afterAll(async () => {
  rest?.close();
  await cluster?.stop();
});

const cliIn = (namespace: string, ...args: string[]) =>
  opkit([...args, '--namespace', namespace, '--kubeconfig', cluster.kubeconfigPath, '--timeout', '4m']);
const cli = (...args: string[]) => cliIn(NAMESPACE, ...args);
const names = async (path: string) =>
  (await rest.request<{ items: { metadata: { name: string } }[] }>('GET', path)).items.map(
    (i) => i.metadata.name,
  );
const operator = () => operatorPod(rest, NAMESPACE, 'memcached-operator-controller-manager');
const CATALOG_SOURCE = `${OLM_V1ALPHA1}/namespaces/${NAMESPACE}/catalogsources/memcached-operator-catalog`;

/** The security context OLM gave the catalog's registry pod, and what the CatalogSource asks for. */
async function registryPodSecurity() {
  const source = await rest.request<{ spec: { grpcPodConfig?: { securityContextConfig?: string } } }>(
    'GET',
    CATALOG_SOURCE,
  );
  const pods = await rest.request<{
    items: { spec: { securityContext?: { seccompProfile?: { type: string } } } }[];
  }>(
    'GET',
    `/api/v1/namespaces/${NAMESPACE}/pods?labelSelector=olm.catalogSource%3Dmemcached-operator-catalog`,
  );
  return {
    config: source.spec.grpcPodConfig?.securityContextConfig,
    seccompProfiles: pods.items.map((p) => p.spec.securityContext?.seccompProfile?.type),
  };
}

describe('opkit run bundle', () => {
  it('installs a bundle image through OLM: the CSV succeeds and the operator reconciles a Memcached', async () => {
    const nowhere = await opkit([
      'run',
      'bundle',
      `${bundles}:v0.1.0`,
      '--plain-http',
      '-n',
      'nowhere',
      '--kubeconfig',
      cluster.kubeconfigPath,
    ]);
    expect([nowhere.code, nowhere.stderr]).toEqual([
      1,
      'opkit: namespace nowhere does not exist: create it first (kubectl create namespace nowhere)\n',
    ]);
    const result = await cli(
      'run',
      'bundle',
      `${bundles}:v0.1.0`,
      '--plain-http',
      '--security-context-config',
      'restricted',
      // The operand image this cluster serves, in place of the upstream tag the bundle names.
      '--env',
      'RELATED_IMAGE_MEMCACHED=docker.io/library/memcached:1.6',
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const typo = await cli('run', 'bundle', `${bundles}:v0.1.0`, '--security-context-config', 'strict');
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain(
      "option '--security-context-config <config>' argument 'strict' is invalid. Allowed choices are legacy, restricted.",
    );
    expect(result.stdout).toContain('created OperatorGroup memcached-run/opkit-run-bundle (AllNamespaces)');
    expect(result.stdout).toMatch(/approved InstallPlan memcached-run\/\S+ \(memcached-operator\.v0\.1\.0\)/);
    expect(result.stdout).toContain('memcached-operator.v0.1.0 is installed in memcached-run');
    const csv = await rest.request<ClusterServiceVersion>(
      'GET',
      `${OLM_V1ALPHA1}/namespaces/${NAMESPACE}/clusterserviceversions/memcached-operator.v0.1.0`,
    );
    expect(csv.status?.phase).toBe('Succeeded');
    // What it created carries its label and the annotation naming the run, by which cleanup knows it.
    const source = await rest.request<{ metadata: KubeObjectMeta }>('GET', CATALOG_SOURCE);
    expect(source.metadata.labels?.['opkit.dev/run-bundle']).toBe('memcached-operator');
    expect(JSON.parse(source.metadata.annotations?.['opkit.dev/run-bundle-run'] ?? '{}')).toEqual({
      package: 'memcached-operator',
      namespace: NAMESPACE,
      run: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    // OLM ran the registry pod as the restricted Pod Security Standard asks (legacy sets no seccomp profile).
    expect(await registryPodSecurity()).toEqual({
      config: 'restricted',
      seccompProfiles: ['RuntimeDefault'],
    });
    // A second install of the package is refused in one line, before anything is pushed or created.
    const again = await cli('run', 'bundle', `${bundles}:v0.1.0`, '--plain-http');
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(
      "opkit: package memcached-operator already has Subscription memcached-run/memcached-operator: upgrade with 'opkit run bundle-upgrade' or remove it with 'opkit cleanup memcached-operator'\n",
    );

    const manager = await operator();
    expect(manager.image).toBe('registry.example/memcached-operator:0.1.0');
    await rest.request('POST', MEMCACHEDS, {
      body: {
        apiVersion: 'cache.example.com/v1alpha1',
        kind: 'Memcached',
        metadata: { name: 'cache' },
        spec: { size: 1 },
      },
    });
    await explainedBy(
      manager,
      eventually(
        'Memcached cache to be Available',
        async () => {
          const m = await rest.request<{ status?: { conditions?: Condition[] } }>(
            'GET',
            `${MEMCACHEDS}/cache`,
          );
          return m.status?.conditions?.find((c) => c.type === 'Available')?.status === 'True' || undefined;
        },
        { timeoutMs: 90_000, intervalMs: 500 },
      ),
    );
  });

  it('upgrades to the next bundle image with run bundle-upgrade: the new CSV succeeds, the old one is gone', async () => {
    const result = await cli('run', 'bundle-upgrade', `${bundles}:v0.2.0`, '--plain-http');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'memcached-operator.v0.2.0 replaced memcached-operator.v0.1.0 in memcached-run',
    );
    expect(await names(`${OLM_V1ALPHA1}/namespaces/${NAMESPACE}/clusterserviceversions`)).toEqual([
      'memcached-operator.v0.2.0',
    ]);
    expect((await operator()).image).toBe('registry.example/memcached-operator:0.2.0');
    // The CatalogSource, re-pointed at the new catalog, keeps the security context run bundle gave it.
    expect((await registryPodSecurity()).config).toBe('restricted');
  });

  it('removes everything with cleanup --delete-crds, and a second cleanup finds nothing to do', async () => {
    const result = await cli('cleanup', 'memcached-operator', '--delete-crds');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'CustomResourceDefinition memcacheds.cache.example.com goes with its 1 Memcached object (--delete-crds)',
    );
    expect(result.stdout).toContain('deleted CustomResourceDefinition memcacheds.cache.example.com');
    for (const kind of ['subscriptions', 'clusterserviceversions', 'installplans', 'catalogsources']) {
      expect(await names(`${OLM_V1ALPHA1}/namespaces/${NAMESPACE}/${kind}`), kind).toEqual([]);
    }
    expect(await names(`/apis/operators.coreos.com/v1/namespaces/${NAMESPACE}/operatorgroups`)).toEqual([]);
    expect(await getOptional(rest, CRD)).toBeUndefined();

    const again = await cli('cleanup', 'memcached-operator');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('nothing to clean up');
    const upgrade = await cli('run', 'bundle-upgrade', `${bundles}:v0.2.0`, '--plain-http');
    expect(upgrade.code).toBe(1);
    expect(upgrade.stderr).toMatch(
      /^opkit: package memcached-operator was not installed in memcached-run by 'opkit run bundle'/,
    );
  });
});

// What cleanup and run bundle did not create is not theirs to delete or take over: two packages installed the
// ordinary way, by Subscriptions whose resolution OLM put into one InstallPlan, and a CatalogSource of the name
// run bundle would give its own.

const ORDINARY = 'ordinary';
const GADGET: SyntheticPackage = {
  name: 'gadget-operator',
  kind: 'Gadget',
  channel: 'stable',
  entries: [{ version: '1.0.0' }],
};
const WIDGET: SyntheticPackage = { ...GADGET, name: 'widget-operator', kind: 'Widget' };
const GADGETS = `/apis/gadget-operator.upgrades.example.com/v1/namespaces/${ORDINARY}/gadgets`;

describe('what run bundle did not create', () => {
  let catalog: CatalogServer | undefined;
  afterAll(async () => {
    await catalog?.stop();
  });
  const catalogSource = (name: string, namespace = ORDINARY) => ({
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'CatalogSource',
    metadata: { name, namespace },
    spec: { sourceType: 'grpc', address: catalog?.address },
  });
  const inOrdinary = (kind: string) => names(`${OLM_V1ALPHA1}/namespaces/${ORDINARY}/${kind}`);

  it('cleanup deletes nothing of a package an ordinary Subscription installed, nor of one sharing its InstallPlan', async () => {
    const dir = join(cluster.dir, 'ordinary-catalog');
    writeSyntheticCatalog(dir, [GADGET, WIDGET]);
    const node = cluster.realNode;
    if (!node) throw new Error('the cluster has no real node');
    catalog = await serveCatalog(dir, join(cluster.dir, 'ordinary-catalog.log'), node.ip);
    await createInstallNamespace(rest, ORDINARY, { targetNamespaces: [ORDINARY] });
    // Both Subscriptions wait for the catalog, so OLM resolves them together into one InstallPlan.
    for (const pkg of [GADGET, WIDGET]) {
      await subscribe(rest, {
        namespace: ORDINARY,
        packageName: pkg.name,
        channel: 'stable',
        source: 'neighbours',
        sourceNamespace: ORDINARY,
      });
    }
    await rest.request('POST', `${OLM_V1ALPHA1}/namespaces/${ORDINARY}/catalogsources`, {
      body: catalogSource('neighbours'),
    });
    const csvs = ['gadget-operator.v1.0.0', 'widget-operator.v1.0.0'];
    const plan = await eventually(
      'one InstallPlan of both Subscriptions to require approval',
      async () =>
        (
          await rest.request<{ items: InstallPlan[] }>(
            'GET',
            `${OLM_V1ALPHA1}/namespaces/${ORDINARY}/installplans`,
          )
        ).items.find(
          (p) =>
            p.status?.phase === 'RequiresApproval' &&
            csvs.every((c) => p.spec.clusterServiceVersionNames.includes(c)),
        ),
      { timeoutMs: 90_000, intervalMs: 250 },
    );
    await rest.request('PATCH', `${OLM_V1ALPHA1}/namespaces/${ORDINARY}/installplans/${plan.metadata.name}`, {
      body: { spec: { approved: true } },
      contentType: 'application/merge-patch+json',
    });
    for (const csv of csvs) await waitForCsvSucceeded(rest, ORDINARY, csv, 90_000);
    await rest.request('POST', GADGETS, {
      body: {
        apiVersion: 'gadget-operator.upgrades.example.com/v1',
        kind: 'Gadget',
        metadata: { name: 'g' },
      },
    });
    const before = await Promise.all(
      ['subscriptions', 'clusterserviceversions', 'installplans', 'catalogsources'].map(inOrdinary),
    );

    // Even told to take CRDs with objects, cleanup finds nothing of its own here.
    const result = await cliIn(ORDINARY, 'cleanup', 'gadget-operator', '--delete-crds');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        "leaving Subscription ordinary/gadget-operator: not created by 'opkit run bundle' for package gadget-operator in ordinary (no opkit.dev/run-bundle label and run annotation of it)",
        "nothing to clean up: no objects of package gadget-operator created by 'opkit run bundle' in namespace ordinary",
        '',
      ].join('\n'),
    );
    expect(
      await Promise.all(
        ['subscriptions', 'clusterserviceversions', 'installplans', 'catalogsources'].map(inOrdinary),
      ),
    ).toEqual(before);
    for (const csv of csvs) expect(before[1]).toContain(csv);
    expect(await names(GADGETS)).toEqual(['g']);
    for (const crd of ['gadgets', 'widgets']) {
      const path = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd}.${crd.replace(/s$/, '')}-operator.upgrades.example.com`;
      expect(await getOptional(rest, path), path).toBeDefined();
    }
  });

  it('run bundle refuses a CatalogSource of its name that it did not create, and leaves it as it is', async () => {
    // A namespace where run bundle would otherwise go ahead: no OperatorGroup, only someone's CatalogSource.
    const namespace = 'foreign-catalog';
    await rest.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
    });
    const sources = `${OLM_V1ALPHA1}/namespaces/${namespace}/catalogsources`;
    await rest.request('POST', sources, {
      body: catalogSource('memcached-operator-catalog', namespace),
    });
    const path = `${sources}/memcached-operator-catalog`;
    const before = await rest.request<{ metadata: KubeObjectMeta; spec: unknown }>('GET', path);
    const result = await cliIn(namespace, 'run', 'bundle', `${bundles}:v0.1.0`, '--plain-http');
    expect([result.code, result.stderr]).toEqual([
      1,
      "opkit: CatalogSource foreign-catalog/memcached-operator-catalog already exists and was not created by 'opkit run bundle' for package memcached-operator: it is left as it is; remove or rename it, or choose another --namespace\n",
    ]);
    const after = await rest.request<{ metadata: KubeObjectMeta; spec: unknown }>('GET', path);
    expect([after.metadata.labels, after.metadata.annotations, after.spec]).toEqual([
      before.metadata.labels,
      before.metadata.annotations,
      before.spec,
    ]);
    // Refused before anything was created.
    expect(await names(`/apis/operators.coreos.com/v1/namespaces/${namespace}/operatorgroups`)).toEqual([]);
    expect(await names(`${OLM_V1ALPHA1}/namespaces/${namespace}/subscriptions`)).toEqual([]);
  });
});
