// The gate on this repository's own catalog: the release that added memcached-operator 0.3.0 passes, with the
// rights its storage migration needs accepted by the bundle's annotation, and deliberately broken copies of it
// fail with exactly the findings each breakage calls for.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { releasedData } from '@opkit/test-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../catalog/declcfg/load.js';
import type { BundleBlob, Catalog } from '../../catalog/declcfg/types.js';
import { serializeCatalog } from '../../catalog/declcfg/write.js';
import type { CatalogModel } from '../../catalog/model/catalog-model.js';
import { convertToModel } from '../../catalog/model/convert-to-model.js';
import type { Finding } from '../findings.js';
import { RELEASE_ACCEPTS_ANNOTATION } from './acceptance.js';
import { checkRelease, type ReleaseReport } from './check-release.js';
import { defaultReleaseChecks } from './default-checks.js';
import { DEFAULT_RELEASE_POLICY, type ReleasePolicy } from './release-policy.js';
import { renderReleaseReport } from './render-report.js';

const PACKAGE = 'memcached-operator';
const RELEASED = 'memcached-operator.v0.3.0';
const ACCOUNT = 'service account memcached-operator-controller-manager';
const EDGE = 'memcached-operator 0.2.0 → 0.3.0';

const workdir = mkdtempSync(join(tmpdir(), 'opkit-release-gate-'));
afterAll(() => rmSync(workdir, { recursive: true, force: true }));

/** The repository's catalog, as `catalog build` wrote it. */
function currentCatalog(): Promise<Catalog> {
  return loadCatalog(releasedData.catalogConfigs);
}

/** The catalog as last released: the current one before the release put memcached-operator 0.3.0 in it. */
function withoutRelease(catalog: Catalog): Catalog {
  return {
    ...catalog,
    bundles: catalog.bundles.filter((b) => b.name !== RELEASED),
    channels: catalog.channels.map((c) => ({ ...c, entries: c.entries.filter((e) => e.name !== RELEASED) })),
  };
}

/** Edits the manifest of `kind` the bundle carries (its `olm.bundle.object` properties) in place. */
function editManifest(
  catalog: Catalog,
  bundle: string,
  kind: string,
  edit: (object: Record<string, unknown>) => void,
): void {
  const index = catalog.bundles.findIndex((b) => b.name === bundle);
  const blob = catalog.bundles[index] as BundleBlob;
  let edited = false;
  const properties = blob.properties.map((p) => {
    if (p.type !== 'olm.bundle.object') return p;
    const object = JSON.parse(Buffer.from((p.value as { data: string }).data, 'base64').toString()) as Record<
      string,
      unknown
    >;
    if (object.kind !== kind) return p;
    edit(object);
    edited = true;
    return { ...p, value: { data: Buffer.from(JSON.stringify(object)).toString('base64') } };
  });
  if (!edited) throw new Error(`${bundle} carries no ${kind}`);
  // A new blob: the old one keeps its decoded manifests.
  catalog.bundles[index] = { ...blob, properties };
}

type Csv = {
  metadata: { annotations: Record<string, string> };
  spec: { install: { spec: { clusterPermissions: { serviceAccountName: string; rules: object[] }[] } } };
};

type Crd = {
  spec: {
    versions: {
      schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, unknown> } } } };
    }[];
  };
};

/** The catalog written to a directory of its own and loaded from it, as the command loads one. */
let written = 0;
async function modelOf(catalog: Catalog): Promise<CatalogModel> {
  const dir = join(workdir, `catalog-${++written}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'catalog.json'), serializeCatalog(catalog));
  return convertToModel(await loadCatalog(dir));
}

/**
 * One deliberate defect of a release, and the findings (`rule: message`) the gate must fail it with. Each
 * check family adds its own: a CRD field removed, an upgrade edge removed.
 */
interface Breakage {
  readonly name: string;
  apply(catalog: Catalog): void;
  readonly failing: readonly string[];
}

const BREAKAGES: readonly Breakage[] = [
  {
    name: 'the 0.3.0 CSV grants the manager cluster-wide read access to secrets',
    apply: (catalog) =>
      editManifest(catalog, RELEASED, 'ClusterServiceVersion', (csv) => {
        const [manager] = (csv as unknown as Csv).spec.install.spec.clusterPermissions;
        manager?.rules.push({ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch'] });
      }),
    failing: [`permission/escalation: ${EDGE}: ${ACCOUNT} gains cluster-wide get, list, watch on secrets`],
  },
  {
    name: 'the 0.3.0 CRD drops a field of the version 0.2.0 stores',
    apply: (catalog) =>
      editManifest(catalog, RELEASED, 'CustomResourceDefinition', (crd) => {
        const [v1alpha1] = (crd as unknown as Crd).spec.versions;
        delete v1alpha1?.schema.openAPIV3Schema.properties.spec.properties.maxConnections;
      }),
    failing: [
      `crd/field-removed: memcached-operator.v0.2.0 → ${RELEASED}: memcacheds.cache.example.com v1alpha1: field spec.maxConnections removed`,
    ],
  },
  {
    name: 'the 0.3.0 CRD gains a CEL rule its own example breaks',
    apply: (catalog) =>
      editManifest(catalog, RELEASED, 'CustomResourceDefinition', (crd) => {
        const v1beta1 = (crd as unknown as Crd).spec.versions[1] as unknown as {
          schema: { openAPIV3Schema: { properties: { spec: Record<string, unknown> } } };
        };
        v1beta1.schema.openAPIV3Schema.properties.spec['x-kubernetes-validations'] = [
          { rule: 'self.replicas > 100', message: 'replicas must be above 100' },
        ];
      }),
    failing: [
      `cel/example-refused: bundle ${RELEASED}: example Memcached memcached-sample is refused by CRD memcacheds.cache.example.com: spec: Invalid value: replicas must be above 100`,
    ],
  },
  {
    name: 'the channel no longer takes 0.1.0 to 0.2.0',
    apply: (catalog) => {
      for (const channel of catalog.channels) {
        for (const entry of channel.entries)
          if (entry.name === 'memcached-operator.v0.2.0') delete entry.replaces;
      }
    },
    failing: [
      // Under v1 (all channels, then the channel alone) 0.1.0 keeps no successor; under v0 the channel's two
      // replaces chains fail every resolution in it.
      `upgrade/stranded: ${PACKAGE} all channels: 0.1.0 (memcached-operator.v0.1.0) has no upgrade path to a head: nothing replaces, skips or skipRange-includes it (v1 only)`,
      `upgrade/edge-removed: ${PACKAGE} all channels: the upgrade edge memcached-operator.v0.1.0 -> memcached-operator.v0.2.0 that users of 0.1.0 took is gone, and it no longer reaches a head (v1 only)`,
      `upgrade/stranded: ${PACKAGE} channel "alpha": 0.1.0 (memcached-operator.v0.1.0) has no upgrade path to a head: nothing replaces, skips or skipRange-includes it (v1 only)`,
      ...['0.1.0', '0.2.0', '0.3.0'].map(
        (v) =>
          `upgrade/stranded: ${PACKAGE} channel "alpha": ${v} (memcached-operator.v${v}) has no upgrade path to a head: the resolver fails: a unique replacement chain within a channel is required to determine the relative order between channel entries, but 2 replacement chains were found in channel "alpha" of package "${PACKAGE}": memcached-operator.v0.1.0, memcached-operator.v0.3.0...memcached-operator.v0.2.0 (v0 only)`,
      ),
      `upgrade/edge-removed: ${PACKAGE} channel "alpha": the upgrade edge memcached-operator.v0.1.0 -> memcached-operator.v0.2.0 that users of 0.1.0 took is gone, and it no longer reaches a head (v0 and v1)`,
    ],
  },
];

// The CSV supports AllNamespaces, so its `permissions` are cluster-wide already: reading its CRD is no new scope.
const ACCEPTED = [
  `permission/escalation: ${EDGE}: ${ACCOUNT} gains cluster-wide patch on customresourcedefinitions.apiextensions.k8s.io/status named memcacheds.cache.example.com`,
];

/** What the other families say of the release of 0.3.0: notes for a reviewer, none failing. */
const NOTES = [
  `diff/bundle-added: ${PACKAGE}: bundle ${RELEASED} (0.3.0) added`,
  `crd/conversion-changed: memcached-operator.v0.2.0 → ${RELEASED}: memcacheds.cache.example.com: conversion strategy changed None → Webhook`,
  `diff/entry-added: ${PACKAGE}: channel alpha: entry ${RELEASED} added`,
  `diff/edge-added: ${PACKAGE}: channel alpha: edge memcached-operator.v0.2.0 → ${RELEASED} (replaces) added`,
];

const lines = (findings: readonly Finding[]): string[] => findings.map((f) => `${f.rule}: ${f.message}`);

let previous: CatalogModel;
beforeAll(async () => {
  previous = await modelOf(withoutRelease(await currentCatalog()));
});

async function check(
  edit: (catalog: Catalog) => void,
  policy: ReleasePolicy = DEFAULT_RELEASE_POLICY,
): Promise<ReleaseReport> {
  const catalog = await currentCatalog();
  edit(catalog);
  return checkRelease(previous, await modelOf(catalog), { checks: defaultReleaseChecks, policy });
}

describe('the release gate on this repository catalog', () => {
  it('passes the release of memcached-operator 0.3.0, listing what its annotation accepts and why', async () => {
    const report = await check(() => {});
    expect(report.verdict).toBe('pass');
    expect(report.edges).toEqual([{ package: PACKAGE, from: 'memcached-operator.v0.2.0', to: RELEASED }]);
    expect(report.failing).toEqual([]);
    expect(lines(report.accepted)).toEqual(ACCEPTED);
    expect(lines(report.other)).toEqual(NOTES);
    expect(report.accepted.map((f) => f.acceptedBy.annotation)).toEqual([RELEASE_ACCEPTS_ANNOTATION]);
    expect(report.accepted.every((f) => f.acceptedBy.reason.length > 0)).toBe(true);
  });

  it('checks only the edges the release adds: the same catalog again finds nothing', async () => {
    const report = checkRelease(previous, previous, {
      checks: defaultReleaseChecks,
      policy: DEFAULT_RELEASE_POLICY,
    });
    expect(report).toEqual({ verdict: 'pass', edges: [], failing: [], accepted: [], other: [], ignored: 0 });
  });

  it('fails a broken copy with exactly the findings of its breakages', async () => {
    const report = await check((catalog) => {
      for (const breakage of BREAKAGES) breakage.apply(catalog);
    });
    expect(report.verdict).toBe('fail');
    // Every breakage's findings, in the report's own order (by package, channel, edge, rule).
    expect(lines(report.failing).sort()).toEqual(BREAKAGES.flatMap((b) => b.failing).sort());
    expect(lines(report.accepted)).toEqual(ACCEPTED);
    expect(lines(report.other)).toEqual(expect.arrayContaining(NOTES));
    expect(report.other.filter((f) => f.severity === 'error')).toEqual([]);
  });

  it.each(BREAKAGES)('fails when $name', async (breakage) => {
    const report = await check((catalog) => breakage.apply(catalog));
    expect(lines(report.failing)).toEqual(breakage.failing);
  });
});

describe('acceptance by annotation', () => {
  const [secrets] = BREAKAGES;
  const annotate = (bundle: string, value: string) => (catalog: Catalog) =>
    editManifest(catalog, bundle, 'ClusterServiceVersion', (csv) => {
      (csv as unknown as Csv).metadata.annotations[RELEASE_ACCEPTS_ANNOTATION] = value;
    });

  it('an acceptance naming what it accepts does not accept another finding of the rule', async () => {
    const report = await check((catalog) => secrets?.apply(catalog));
    expect(lines(report.failing)).toEqual(secrets?.failing);
  });

  it('an acceptance of the rule alone accepts every finding of it on edges into the bundle, never silently', async () => {
    const report = await check((catalog) => {
      secrets?.apply(catalog);
      annotate(
        RELEASED,
        'permission/*: the manager serves TLS with certificates it reads from secrets',
      )(catalog);
    });
    expect(report.verdict).toBe('pass');
    expect(report.accepted.map((f) => [f.rule, f.acceptedBy.reason])).toEqual([
      ['permission/escalation', 'the manager serves TLS with certificates it reads from secrets'],
      ['permission/escalation', 'the manager serves TLS with certificates it reads from secrets'],
    ]);
    expect(renderReleaseReport(report, 'text')).toContain(
      `permission/escalation: ${EDGE}: ${ACCOUNT} gains cluster-wide get, list, watch on secrets (accepted: the manager serves TLS`,
    );
  });

  it('the annotation of the bundle an edge leaves accepts nothing on it', async () => {
    const report = await check((catalog) => {
      secrets?.apply(catalog);
      annotate('memcached-operator.v0.2.0', 'permission/*: not this edge')(catalog);
    });
    expect(lines(report.failing)).toEqual(secrets?.failing);
  });

  it('a malformed annotation fails the release, naming the bundle and the line', async () => {
    const report = await check(annotate(RELEASED, 'permission/escalation because it must'));
    expect(report.verdict).toBe('fail');
    expect(lines(report.failing)).toEqual([
      `gate/invalid-acceptance: ${PACKAGE} ${RELEASED}: annotation ${RELEASE_ACCEPTS_ANNOTATION}: line "permission/escalation because it must" is not "<rule glob> (<text>): <reason>"`,
      ...ACCEPTED,
    ]);
  });
});

describe('the policy', () => {
  const secrets = (catalog: Catalog) => BREAKAGES[0]?.apply(catalog);

  it('fails only the rules it lists, the others staying in the report', async () => {
    const report = await check((catalog) => secrets(catalog), {
      fail: ['permission/cluster-scope'],
      ignore: [],
    });
    expect(report.verdict).toBe('pass');
    expect(lines(report.accepted)).toEqual([]);
    expect(report.other.map((f) => f.rule).filter((r) => r.startsWith('permission/'))).toEqual([
      'permission/escalation',
      'permission/escalation',
    ]);
  });

  it('leaves out what it ignores, and counts it', async () => {
    const report = await check((catalog) => secrets(catalog), { ignore: ['permission/escalation'] });
    expect(report.verdict).toBe('pass');
    expect(report.ignored).toBe(2);
    expect(renderReleaseReport(report, 'text').split('\n')[0]).toBe(
      `PASS: 0 failing, 0 accepted, ${NOTES.length} other, 2 ignored on 1 new upgrade edge`,
    );
  });
});

describe('the report', () => {
  it('is written as text, Markdown, JSON and YAML', async () => {
    const report = await check((catalog) => BREAKAGES[0]?.apply(catalog));
    expect(renderReleaseReport(report, 'text')).toBe(
      [
        `FAIL: 1 failing, 1 accepted, ${NOTES.length} other on 1 new upgrade edge`,
        'failing:',
        `  error   permission/escalation: ${EDGE}: ${ACCOUNT} gains cluster-wide get, list, watch on secrets`,
        'accepted:',
        `  error   ${ACCEPTED[0]} (accepted: trims its own CRD's storedVersions after migrating objects)`,
        'other:',
        ...NOTES.map((note) => `  info    ${note}`),
        '',
      ].join('\n'),
    );
    const markdown = renderReleaseReport(report, 'markdown');
    expect(markdown.split('\n').slice(0, 3)).toEqual([
      '## Release check: fails',
      '',
      `1 failing, 1 accepted, ${NOTES.length} other on 1 new upgrade edge.`,
    ]);
    expect(markdown).toContain(
      `| error | \`permission/escalation\` | ${EDGE}: ${ACCOUNT} gains cluster-wide get, list, watch on secrets |`,
    );
    expect(JSON.parse(renderReleaseReport(report, 'json'))).toEqual(JSON.parse(JSON.stringify(report)));
    const { parse } = await import('yaml');
    expect(parse(renderReleaseReport(report, 'yaml'))).toEqual(JSON.parse(JSON.stringify(report)));
  });
});

describe('the edges the gate checks', () => {
  const [, fieldRemoved] = BREAKAGES;

  it('checks an edge out of a bundle the release prunes with that bundle as last released', async () => {
    const report = await check((catalog) => {
      fieldRemoved?.apply(catalog);
      // 0.3.0 still replaces 0.2.0, which users are on; the catalog no longer carries 0.2.0.
      catalog.bundles = catalog.bundles.filter((b) => b.name !== 'memcached-operator.v0.2.0');
      for (const channel of catalog.channels)
        channel.entries = channel.entries.filter((e) => e.name !== 'memcached-operator.v0.2.0');
    });
    expect(report.edges).toContainEqual({
      package: PACKAGE,
      from: 'memcached-operator.v0.2.0',
      to: RELEASED,
    });
    expect(lines(report.failing)).toContain(fieldRemoved?.failing[0]);
    expect(lines(report.other).filter((l) => l.includes('not checked'))).toEqual([]);
  });

  it('checks an edge into a released bundle changed in place, and warns of the change', async () => {
    // The release changes nothing but 0.3.0's CRD, which the last release already had.
    const released = await currentCatalog();
    const report = checkRelease(await modelOf(released), await modelOf(await broken(fieldRemoved)), {
      checks: defaultReleaseChecks,
      policy: DEFAULT_RELEASE_POLICY,
    });
    expect(report.edges).toEqual([{ package: PACKAGE, from: 'memcached-operator.v0.2.0', to: RELEASED }]);
    expect(lines(report.failing)).toEqual(fieldRemoved?.failing);
    expect(report.other.filter((f) => f.rule === 'diff/object-changed')).toEqual([
      expect.objectContaining({
        severity: 'warning',
        message: `${PACKAGE}: released bundle ${RELEASED} changed in place: manifest CustomResourceDefinition/memcacheds.cache.example.com changed`,
      }),
    ]);
  });

  it('does not check edges again for a released bundle whose image reference alone changed', async () => {
    const released = await currentCatalog();
    const moved = await currentCatalog();
    moved.bundles = moved.bundles.map((b) =>
      b.name === RELEASED ? { ...b, image: 'registry.example/memcached-operator-bundle:0.3.0' } : b,
    );
    const report = checkRelease(await modelOf(released), await modelOf(moved), {
      checks: defaultReleaseChecks,
      policy: DEFAULT_RELEASE_POLICY,
    });
    expect(report.edges).toEqual([]);
    expect(report.other.map((f) => f.rule)).toEqual(['diff/image-changed']);
  });

  async function broken(breakage: Breakage | undefined): Promise<Catalog> {
    const catalog = await currentCatalog();
    breakage?.apply(catalog);
    return catalog;
  }
});

describe('acceptances the gate refuses', () => {
  const [secrets] = BREAKAGES;
  const annotate = (value: string) => (catalog: Catalog) =>
    editManifest(catalog, RELEASED, 'ClusterServiceVersion', (csv) => {
      (csv as unknown as Csv).metadata.annotations[RELEASE_ACCEPTS_ANNOTATION] = value;
    });
  const invalid = (problem: string) =>
    `gate/invalid-acceptance: ${PACKAGE} ${RELEASED}: annotation ${RELEASE_ACCEPTS_ANNOTATION}: ${problem}`;

  it('an annotation with a malformed line accepts nothing, not even its well-formed lines', async () => {
    const report = await check((catalog) => {
      secrets?.apply(catalog);
      annotate('permission/*: reads TLS certificates\npermission/escalation because it must')(catalog);
    });
    expect(report.accepted).toEqual([]);
    expect(lines(report.failing)).toContain(secrets?.failing[0]);
    expect(lines(report.failing)).toContain(
      invalid('line "permission/escalation because it must" is not "<rule glob> (<text>): <reason>"'),
    );
  });

  it('a malformed annotation fails whatever the policy fails or ignores', async () => {
    const report = await check(annotate('permission/escalation because it must'), {
      fail: ['upgrade/stranded'],
      ignore: ['gate/*'],
    });
    expect(report.verdict).toBe('fail');
    expect(report.failing.map((f) => f.rule)).toEqual(['gate/invalid-acceptance']);
  });

  it('refuses an annotation of more than 200 lines or 64 KiB', async () => {
    const line = 'permission/*: reads TLS certificates';
    const many = await check(annotate(Array.from({ length: 201 }, () => line).join('\n')));
    expect(lines(many.failing)).toContain(invalid('has more than 200 lines'));
    const large = await check(annotate(`permission/*: ${'x'.repeat(64 * 1024)}`));
    expect(lines(large.failing)).toContain(invalid('is larger than 64 KiB'));
    expect(large.accepted).toEqual([]);
  });
});
