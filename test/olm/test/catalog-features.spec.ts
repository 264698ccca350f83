import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeRest, type LocalCluster, startCluster } from '@opkit/test-cluster';
import { eventually } from '@opkit/test-cluster/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OLM_V1ALPHA1, type Subscription } from '../src/olm-types.js';
import {
  type CatalogServer,
  opkit,
  publishCatalog,
  pushCatalogImage,
  serveCatalog,
} from '../src/opkit-cli.js';
import {
  approveNextInstallPlan,
  createInstallNamespace,
  subscribe,
  waitForCsvSucceeded,
} from '../src/subscriptions.js';
import { type SyntheticPackage, writeSyntheticBundle } from '../src/synthetic-catalog.js';

// opm's newer catalog features through real OLM, served by `opkit catalog serve`:
// - bundles that carry only `olm.csv.metadata` (opm's migration `bundle-object-to-csv-metadata`), which OLM
//   installs by unpacking each bundle's image;
// - `olm.deprecations`, which OLM reports on the Subscription as PackageDeprecated, ChannelDeprecated,
//   BundleDeprecated and the roll-up Deprecated, and drops once the catalog withdraws them.
// The same catalog is then installed from our serving catalog image, run by OLM as the catalog pod.

const PKG: SyntheticPackage = {
  name: 'widget-operator',
  kind: 'Widget',
  channel: 'stable',
  entries: [{ version: '1.0.0' }, { version: '1.1.0', replaces: '1.0.0' }],
};
const NAMESPACE = 'widgets';
const SUBSCRIPTION = `${OLM_V1ALPHA1}/namespaces/${NAMESPACE}/subscriptions/${PKG.name}`;
const DEPRECATIONS = {
  schema: 'olm.deprecations',
  package: PKG.name,
  entries: [
    { reference: { schema: 'olm.package' }, message: 'widget-operator is end of life: use gadget-operator' },
    { reference: { schema: 'olm.channel', name: 'stable' }, message: 'stable gets no more releases' },
    {
      reference: { schema: 'olm.bundle', name: `${PKG.name}.v1.0.0` },
      message: 'widget-operator.v1.0.0 loses data: upgrade to 1.1.0',
    },
  ],
};

let cluster: LocalCluster;
let rest: KubeRest;
let catalogDir: string;
let server: CatalogServer | undefined;
let bundleBlobs: object[] = [];

/** The catalog: package, channel, the migrated bundles, then whatever else is given. */
function writeCatalog(extra: readonly object[]): void {
  const blobs = [
    { schema: 'olm.package', name: PKG.name, defaultChannel: PKG.channel },
    {
      schema: 'olm.channel',
      package: PKG.name,
      name: PKG.channel,
      entries: [
        { name: `${PKG.name}.v1.0.0` },
        { name: `${PKG.name}.v1.1.0`, replaces: `${PKG.name}.v1.0.0` },
      ],
    },
    ...bundleBlobs,
    ...extra,
  ];
  writeFileSync(
    join(catalogDir, PKG.name, 'catalog.json'),
    `${blobs.map((b) => JSON.stringify(b, null, 2)).join('\n')}\n`,
  );
}

/** Serves the catalog directory as it is: OLM gets each bundle's image, not its manifests. */
function serve(logName: string): Promise<CatalogServer> {
  const host = cluster.realNode?.ip;
  if (host === undefined) throw new Error('the cluster has no real node');
  return serveCatalog(catalogDir, join(cluster.dir, logName), host, { inlineBundles: false });
}

/** Bundle blobs of the pushed bundle images, rendered and migrated to `olm.csv.metadata` as opm does. */
async function renderedBundles(images: readonly string[]): Promise<object[]> {
  const rendered = await opkit([
    'catalog',
    'render',
    ...images,
    '--plain-http',
    '--migrate-level',
    'bundle-object-to-csv-metadata',
    '-o',
    'json',
  ]);
  if (rendered.code !== 0) throw new Error(`catalog render failed: ${rendered.stderr}`);
  return rendered.stdout
    .split(/\n(?=\{)/)
    .filter((part) => part.trim() !== '')
    .map((part) => JSON.parse(part) as object);
}

beforeAll(async () => {
  cluster = await startCluster({ olm: true });
  rest = new KubeRest(cluster.kubeConfig);
  const { registry } = cluster;
  if (!registry || !cluster.realNode) throw new Error('the cluster has no registry and real node');

  // The bundles as bundle images in the cluster's registry.
  const images = join(cluster.dir, 'bundle-images');
  for (const entry of PKG.entries) {
    const bundle = join(cluster.dir, 'bundles', entry.version);
    writeSyntheticBundle(bundle, PKG, entry);
    const built = await opkit([
      'bundle',
      'image',
      bundle,
      '--layout',
      join(images, `${PKG.name}-bundle`, entry.version),
      '--tag',
      entry.version,
    ]);
    if (built.code !== 0) throw new Error(`bundle image failed: ${built.stderr}`);
  }
  const pushed = await opkit([
    'bundle',
    'push',
    '--images',
    images,
    '--repository',
    `${registry}/synthetic`,
    '--plain-http',
  ]);
  if (pushed.code !== 0) throw new Error(`bundle push failed: ${pushed.stderr}`);
  const references = [...pushed.stdout.matchAll(/^pushed (\S+):v\S+@(sha256:[0-9a-f]{64})$/gm)].map(
    ([, repository, digest]) => `${repository}@${digest}`,
  );
  expect(references).toHaveLength(PKG.entries.length);

  // The catalog: package, channel, the migrated bundles and the deprecations.
  catalogDir = join(cluster.dir, 'catalog');
  mkdirSync(join(catalogDir, PKG.name), { recursive: true });
  bundleBlobs = await renderedBundles(references);
  writeCatalog([DEPRECATIONS]);
  server = await serve('catalog-serve.log');
});

afterAll(async () => {
  await server?.stop();
  rest?.close();
  await cluster?.stop();
});

const subscription = () => rest.request<Subscription>('GET', SUBSCRIPTION);

/** The catalog's messages as OLM reports them: prefixed with what they deprecate. */
const reported = () => [
  `olm.package/${PKG.name}: ${DEPRECATIONS.entries[0]?.message}`,
  `olm.channel/${PKG.channel}: ${DEPRECATIONS.entries[1]?.message}`,
  `olm.bundle/${PKG.name}.v1.0.0: ${DEPRECATIONS.entries[2]?.message}`,
];

describe('opm catalog features through OLM', () => {
  it('the catalog holds only CSV metadata for its bundles, validates and is published', async () => {
    const catalog = await opkit(['catalog', 'render', catalogDir, '-o', 'json']);
    expect(catalog.code, catalog.stderr).toBe(0);
    expect(catalog.stdout).toContain('"type": "olm.csv.metadata"');
    expect(catalog.stdout).not.toContain('"type": "olm.bundle.object"');
    const validation = await opkit(['catalog', 'validate', catalogDir]);
    expect(validation.code, validation.stderr).toBe(0);
    const published = await publishCatalog({
      name: 'features',
      namespace: 'olm',
      address: server?.address,
      kubeconfigPath: cluster.kubeconfigPath,
    });
    expect(published.code, published.stderr).toBe(0);
  });

  it('installs a bundle known only by its CSV metadata, unpacking its image', async () => {
    await createInstallNamespace(rest, NAMESPACE, { targetNamespaces: [NAMESPACE] });
    await subscribe(rest, {
      namespace: NAMESPACE,
      packageName: PKG.name,
      channel: PKG.channel,
      source: 'features',
      sourceNamespace: 'olm',
      startingCSV: `${PKG.name}.v1.0.0`,
    });
    expect(await approveNextInstallPlan(rest, NAMESPACE, PKG.name)).toEqual([`${PKG.name}.v1.0.0`]);
    await waitForCsvSucceeded(rest, NAMESPACE, `${PKG.name}.v1.0.0`);
  });

  it('reports the package, channel and bundle deprecations on the Subscription', async () => {
    const conditions = await eventually(
      'the Subscription to report its deprecations',
      async () => {
        const found = (await subscription()).status?.conditions ?? [];
        return found.some((c) => c.type === 'Deprecated') ? found : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 1000 },
    );
    const byType = Object.fromEntries(conditions.map((c) => [c.type, [c.status, c.message]]));
    const [pkg, channel, bundle] = reported();
    expect(byType).toMatchObject({
      PackageDeprecated: ['True', pkg],
      ChannelDeprecated: ['True', channel],
      BundleDeprecated: ['True', bundle],
      Deprecated: ['True', `${pkg}; ${channel}; ${bundle}`],
    });
  });

  it('upgrades along the channel, and the deprecation of the old bundle goes with it', async () => {
    expect(await approveNextInstallPlan(rest, NAMESPACE, PKG.name)).toEqual([`${PKG.name}.v1.1.0`]);
    await waitForCsvSucceeded(rest, NAMESPACE, `${PKG.name}.v1.1.0`);
    const conditions = await eventually(
      'the bundle deprecation to go once 1.1.0 is installed',
      async () => {
        const found = (await subscription()).status?.conditions ?? [];
        return found.some((c) => c.type === 'BundleDeprecated') ? undefined : found;
      },
      { timeoutMs: 120_000, intervalMs: 1000 },
    );
    const [pkg, channel] = reported();
    expect(conditions.find((c) => c.type === 'Deprecated')?.message).toBe(`${pkg}; ${channel}`);
  });

  it('clears the deprecation conditions once an updated catalog withdraws them', async () => {
    // The update: the same catalog without its olm.deprecations, served anew and published in place.
    await server?.stop();
    writeCatalog([]);
    server = await serve('catalog-serve-updated.log');
    const published = await publishCatalog({
      name: 'features',
      namespace: 'olm',
      address: server.address,
      kubeconfigPath: cluster.kubeconfigPath,
    });
    expect(published.code, published.stderr).toBe(0);
    const deprecationTypes = ['Deprecated', 'PackageDeprecated', 'ChannelDeprecated', 'BundleDeprecated'];
    await eventually(
      'the Subscription to drop its deprecation conditions',
      async () => {
        const found = (await subscription()).status?.conditions ?? [];
        const types = found.map((c) => c.type).filter((t) => deprecationTypes.includes(t));
        return types.length === 0 ? found : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 1000 },
    );
    expect((await subscription()).status?.installedCSV).toBe(`${PKG.name}.v1.1.0`);
  });

  it('installs the same catalog from our catalog image, which OLM runs as the catalog pod', {
    timeout: 300_000,
  }, async () => {
    const { registry } = cluster;
    if (!registry) throw new Error('the cluster has no registry');
    // Our server in the image, bundles not inline: the catalog pod answers with each bundle's image.
    const image = await pushCatalogImage({
      catalogDir,
      registry,
      layoutDir: join(cluster.dir, 'catalog-image'),
      serving: true,
      inlineBundles: false,
    });
    const published = await publishCatalog({
      name: 'features-image',
      namespace: 'olm',
      image,
      kubeconfigPath: cluster.kubeconfigPath,
      timeout: '240s',
    });
    expect(published.code, published.stderr).toBe(0);
    const namespace = 'widgets-from-image';
    await createInstallNamespace(rest, namespace, { targetNamespaces: [namespace] });
    await subscribe(rest, {
      namespace,
      packageName: PKG.name,
      channel: PKG.channel,
      source: 'features-image',
      sourceNamespace: 'olm',
      startingCSV: `${PKG.name}.v1.1.0`,
    });
    expect(await approveNextInstallPlan(rest, namespace, PKG.name)).toEqual([`${PKG.name}.v1.1.0`]);
    await waitForCsvSucceeded(rest, namespace, `${PKG.name}.v1.1.0`);
  });
});
