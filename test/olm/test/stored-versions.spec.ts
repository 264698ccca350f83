import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { directClient } from '@opkit/controller-runtime/client';
import { migrateStorageVersion } from '@opkit/controller-runtime/manager';
import { afterAll, describe, expect, it } from 'vitest';
import type { CustomResourceDefinition } from '../src/kube-types.js';
import { useOlmWorld } from '../src/olm-world.js';
import { opkit, publishCatalog } from '../src/opkit-cli.js';
import {
  approveNextInstallPlan,
  createInstallNamespace,
  installPlanFailure,
  resolveAgain,
  subscribe,
  waitForCsvSucceeded,
} from '../src/subscriptions.js';
import { type SyntheticPackage, writeSyntheticCatalog } from '../src/synthetic-catalog.js';

// An API version can stop being served only once no object is stored in it: 3.0.0 drops v1alpha1, which
// objects created under 1.0.0 are still stored as. opkit's catalog validation warns about that edge, OLM
// refuses the upgrade, and after the objects are rewritten in the storage version (the runtime's
// migrateStorageVersion, which operators run after such an upgrade) and the CRD's status trimmed, it goes on.

const PACKAGE: SyntheticPackage = {
  name: 'doohickey-operator',
  kind: 'Doohickey',
  channel: 'stable',
  entries: [
    { version: '1.0.0', crdVersions: [{ name: 'v1alpha1', storage: true }] },
    {
      version: '2.0.0',
      replaces: '1.0.0',
      crdVersions: [
        { name: 'v1alpha1', storage: false },
        { name: 'v1beta1', storage: true },
      ],
    },
    { version: '3.0.0', replaces: '2.0.0', crdVersions: [{ name: 'v1beta1', storage: true }] },
  ],
};
const NAMESPACE = PACKAGE.name;
const CRD =
  '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/doohickeys.doohickey-operator.upgrades.example.com';
const csv = (version: string) => `${PACKAGE.name}.v${version}`;

let catalogDir: string;
const world = useOlmWorld({
  catalogDir: () => {
    catalogDir = mkdtempSync(join(tmpdir(), 'opkit-stored-versions-'));
    writeSyntheticCatalog(catalogDir, [PACKAGE]);
    return catalogDir;
  },
  delivery: 'host',
});

afterAll(() => {
  if (catalogDir) rmSync(catalogDir, { recursive: true, force: true });
});

const storedVersions = async () =>
  (
    await world().rest.request<CustomResourceDefinition & { status: { storedVersions: string[] } }>(
      'GET',
      CRD,
    )
  ).status.storedVersions;

describe('an upgrade that stops serving a stored API version', () => {
  it('is reported by opkit catalog validate, without making the catalog invalid', async () => {
    const validation = await opkit(['catalog', 'validate', catalogDir]);
    expect(validation.code, validation.stderr).toBe(0);
    expect(`${validation.stdout}${validation.stderr}`).toContain(
      `bundle "${csv('3.0.0')}" no longer serves doohickey-operator.upgrades.example.com/v1alpha1, Kind=Doohickey, which "${csv('2.0.0')}" does`,
    );
    const published = await publishCatalog({
      name: 'stored-versions',
      namespace: 'olm',
      address: world().catalog?.address,
      kubeconfigPath: world().cluster.kubeconfigPath,
    });
    expect(published.code, published.stderr).toBe(0);
  });

  it('is refused by OLM while objects may be stored in it, and goes through once they are migrated', {
    timeout: 600_000,
  }, async () => {
    const { rest, cluster } = world();
    await createInstallNamespace(rest, NAMESPACE, { targetNamespaces: [NAMESPACE] });
    await subscribe(rest, {
      namespace: NAMESPACE,
      packageName: PACKAGE.name,
      channel: PACKAGE.channel,
      source: 'stored-versions',
      sourceNamespace: 'olm',
      startingCSV: csv('1.0.0'),
    });
    expect(await approveNextInstallPlan(rest, NAMESPACE, PACKAGE.name)).toEqual([csv('1.0.0')]);
    await waitForCsvSucceeded(rest, NAMESPACE, csv('1.0.0'));
    await rest.request(
      'POST',
      `/apis/doohickey-operator.upgrades.example.com/v1alpha1/namespaces/${NAMESPACE}/doohickeys`,
      {
        body: {
          apiVersion: 'doohickey-operator.upgrades.example.com/v1alpha1',
          kind: 'Doohickey',
          metadata: { name: 'old' },
          spec: { colour: 'blue' },
        },
      },
    );

    expect(await approveNextInstallPlan(rest, NAMESPACE, PACKAGE.name)).toEqual([csv('2.0.0')]);
    await waitForCsvSucceeded(rest, NAMESPACE, csv('2.0.0'));
    expect(await storedVersions()).toEqual(['v1alpha1', 'v1beta1']);

    // 3.0.0 would strand the object stored as v1alpha1: OLM fails the plan.
    await resolveAgain(rest, NAMESPACE, PACKAGE.name);
    expect(await approveNextInstallPlan(rest, NAMESPACE, PACKAGE.name)).toEqual([csv('3.0.0')]);
    expect(await installPlanFailure(rest, NAMESPACE, PACKAGE.name)).toMatch(
      /risk of data loss|stored version/,
    );

    // Migrate as the operator of 2.0.0 would. OLM keeps retrying the approved plan for a minute
    // (--install-plan-retry-timeout), so the same plan now goes through.
    const client = directClient(cluster.kubeConfig);
    const migrated = await migrateStorageVersion(
      client,
      'doohickeys.doohickey-operator.upgrades.example.com',
    ).finally(() => client.close());
    expect(migrated).toEqual({ rewritten: 1, storedVersions: ['v1alpha1', 'v1beta1'] });
    expect(await storedVersions()).toEqual(['v1beta1']);
    await waitForCsvSucceeded(rest, NAMESPACE, csv('3.0.0'));
    const kept = await rest.request<{ spec: { colour: string } }>(
      'GET',
      `/apis/doohickey-operator.upgrades.example.com/v1beta1/namespaces/${NAMESPACE}/doohickeys/old`,
    );
    expect(kept.spec.colour).toBe('blue');
  });
});
