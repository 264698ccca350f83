import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '@opkit/test-cluster/vitest';
import { afterAll, describe, expect, it } from 'vitest';
import { OLM_V1ALPHA1, type Subscription } from '../src/olm-types.js';
import { useOlmWorld } from '../src/olm-world.js';
import { opkit, publishCatalog } from '../src/opkit-cli.js';
import {
  approveNextInstallPlan,
  createInstallNamespace,
  subscribe,
  waitForCsvSucceeded,
} from '../src/subscriptions.js';
import { type SyntheticPackage, writeSyntheticCatalog } from '../src/synthetic-catalog.js';

// Channels where a broken release is skipped: OLM's upgrade from the installed version must be the one
// `opkit graph` predicts from the same catalog.

/** 1.1.0 is broken: 1.2.0 replaces 1.0.0 and skips it, so nobody on 1.0.0 ever gets it. */
const SKIPS: SyntheticPackage = {
  name: 'gadget-operator',
  kind: 'Gadget',
  channel: 'stable',
  entries: [
    { version: '1.0.0' },
    { version: '1.1.0', replaces: '1.0.0' },
    { version: '1.2.0', replaces: '1.0.0', skips: ['1.1.0'] },
  ],
};

/** 1.2.0 replaces 1.1.0 but also takes every version in its skipRange straight to itself. */
const SKIP_RANGE: SyntheticPackage = {
  name: 'gizmo-operator',
  kind: 'Gizmo',
  channel: 'stable',
  entries: [
    { version: '1.0.0' },
    { version: '1.1.0', replaces: '1.0.0' },
    { version: '1.2.0', replaces: '1.1.0', skipRange: '>=1.0.0 <1.2.0' },
  ],
};

let catalogDir: string;
const world = useOlmWorld({
  catalogDir: () => {
    catalogDir = mkdtempSync(join(tmpdir(), 'opkit-skips-'));
    writeSyntheticCatalog(catalogDir, [SKIPS, SKIP_RANGE]);
    return catalogDir;
  },
  delivery: 'host',
});

afterAll(() => {
  if (catalogDir) rmSync(catalogDir, { recursive: true, force: true });
});

/** What `opkit graph --installed` says OLM does next, as a CSV name. */
async function predictedUpgrade(pkg: SyntheticPackage, installed: string): Promise<string> {
  const result = await opkit(['graph', catalogDir, '--package', pkg.name, '--installed', installed]);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const next = new RegExp(`^${installed.replaceAll('.', '\\.')} → (\\S+) `).exec(result.stdout)?.[1];
  if (!next) throw new Error(`opkit graph predicted no upgrade from ${installed}: ${result.stdout}`);
  return `${pkg.name}.v${next}`;
}

describe('OLM follows skips and skipRange as opkit graph predicts', () => {
  it('the catalog validates and is published', async () => {
    const validation = await opkit(['catalog', 'validate', catalogDir]);
    expect(validation.code, validation.stderr).toBe(0);
    const published = await publishCatalog({
      name: 'upgrades',
      namespace: 'olm',
      address: world().catalog?.address,
      kubeconfigPath: world().cluster.kubeconfigPath,
    });
    expect(published.code, published.stderr).toBe(0);
  });

  it.each([
    { pkg: SKIPS, expected: 'gadget-operator.v1.2.0' },
    { pkg: SKIP_RANGE, expected: 'gizmo-operator.v1.2.0' },
  ])('$pkg.name: from 1.0.0, OLM upgrades to the predicted $expected', async ({ pkg, expected }) => {
    const { rest } = world();
    const namespace = pkg.name;
    const first = `${pkg.name}.v1.0.0`;
    // OperatorGroups that target only their own namespace, so both packages install side by side.
    await createInstallNamespace(rest, namespace, { targetNamespaces: [namespace] });
    await subscribe(rest, {
      namespace,
      packageName: pkg.name,
      channel: pkg.channel,
      source: 'upgrades',
      sourceNamespace: 'olm',
      startingCSV: first,
    });
    expect(await approveNextInstallPlan(rest, namespace, pkg.name)).toEqual([first]);
    await waitForCsvSucceeded(rest, namespace, first);

    const prediction = await predictedUpgrade(pkg, '1.0.0');
    expect(prediction).toBe(expected);
    expect(await approveNextInstallPlan(rest, namespace, pkg.name)).toEqual([prediction]);
    await waitForCsvSucceeded(rest, namespace, prediction);
    const subscription = await eventually(
      `Subscription ${namespace}/${pkg.name} to be at the latest version`,
      async () => {
        const sub = await rest.request<Subscription>(
          'GET',
          `${OLM_V1ALPHA1}/namespaces/${namespace}/subscriptions/${pkg.name}`,
        );
        return sub.status?.state === 'AtLatestKnown' ? sub : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    expect(subscription.status?.installedCSV).toBe(prediction);
  });

  it('a replaces that names a missing bundle is refused before publishing: it strands the older versions', async () => {
    const broken = mkdtempSync(join(tmpdir(), 'opkit-broken-'));
    try {
      writeSyntheticCatalog(broken, [
        {
          ...SKIPS,
          entries: [
            { version: '1.0.0' },
            { version: '1.1.0', replaces: '1.0.0' },
            { version: '1.2.0', replaces: '1.1.5', skips: ['1.1.0'] },
          ],
        },
      ]);
      const result = await opkit(['catalog', 'validate', broken]);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain('invalid channel "stable"');
      expect(result.stderr).toContain(
        'channel contains one or more stranded bundles: gadget-operator.v1.0.0',
      );
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
  });
});
