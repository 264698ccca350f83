import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { opmBinary } from '@opkit/test-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { formatOlmBundleJson, renderBundle } from '../../src/bundle/render.js';
import { writeBundle } from '../../src/bundle/write.js';
import { parseCatalogContent, serializeCatalog } from '../../src/catalog/index.js';
import { findBaseCsv } from '../../src/csv/base.js';
import { generateCsv } from '../../src/csv/generate.js';
import type { ClusterServiceVersion } from '../../src/manifest/cluster-service-version.js';
import type { Manifest } from '../../src/manifest/manifest.js';
import { validateBundleDir } from '../../src/validation/validate-bundle-dir.js';
import { corpusCases } from './corpus.js';

// `opm render <bundle-dir> -o json` (opm v1.73.0) against renderBundle: same olm.bundle blob, byte for byte.

const run = promisify(execFile);
let opm: string;
let scratch: string;
let rich: string;

beforeAll(async () => {
  opm = await opmBinary();
  scratch = mkdtempSync(join(tmpdir(), 'opkit-opm-render-'));
  rich = join(scratch, 'rich');
  await richBundle(rich);
}, 900_000);

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

async function opmRender(dir: string, ...flags: string[]): Promise<string> {
  const { stdout } = await run(opm, ['render', dir, '-o', 'json', ...flags], { maxBuffer: 64 << 20 });
  return stdout;
}

/** A bundle exercising what renderBundle derives: dependencies, properties, required APIs, v1beta1 CRDs. */
async function richBundle(dir: string): Promise<void> {
  const crdV1beta1: Manifest = {
    apiVersion: 'apiextensions.k8s.io/v1beta1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'gadgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      version: 'v1alpha1',
      preserveUnknownFields: false,
      names: { kind: 'Gadget', listKind: 'GadgetList', plural: 'gadgets', singular: 'gadget' },
      versions: [
        { name: 'v1alpha1', served: true, storage: true },
        { name: 'v1alpha2', served: true, storage: false },
      ],
      validation: { openAPIV3Schema: { type: 'object', description: 'Gadgets <b>&</b> “quotes” é' } },
    },
  };
  const csv: ClusterServiceVersion = {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: {
      name: 'gadget-operator.v1.2.3-rc.1',
      namespace: 'placeholder',
      labels: { 'operatorframework.io/arch.amd64': 'supported' },
      annotations: {
        'alm-examples': '[]',
        'olm.properties':
          '[{"type":"olm.gvk","value":{"group":"extra.example.com","kind":"Extra","version":"v1"}},{"type":"custom.note","value":{"z":1,"a":"x<y"}}]',
      },
    },
    spec: {
      displayName: 'Gadget <Operator>',
      description: 'Line one & two\n\u2028separator',
      version: '1.2.3-rc.1',
      replaces: 'gadget-operator.v1.2.2',
      skips: ['gadget-operator.v1.2.1'],
      installModes: [{ type: 'AllNamespaces', supported: true }],
      customresourcedefinitions: {
        owned: [
          {
            name: 'gadgets.example.com',
            version: 'v1alpha2',
            kind: 'Gadget',
            specDescriptors: [{ path: 'size', value: 3 }],
          },
          { name: 'gadgets.example.com', version: 'v1alpha1', kind: 'Gadget' },
        ],
        required: [
          {
            name: 'widgets.example.com',
            version: 'v1',
            kind: 'Widget',
            displayName: 'Widget',
            description: 'w',
          },
        ],
      },
      apiservicedefinitions: {
        owned: [
          {
            name: 'things',
            group: 'things.example.com',
            version: 'v1',
            kind: 'Thing',
            deploymentName: 'gadget',
            containerPort: 5443,
          },
        ],
        required: [{ name: 'others', group: 'others.example.com', version: 'v2', kind: 'Other' }],
      },
      install: {
        strategy: 'deployment',
        spec: {
          deployments: [
            {
              name: 'gadget',
              spec: {
                selector: { matchLabels: { app: 'gadget' } },
                template: {
                  metadata: { labels: { app: 'gadget' } },
                  spec: {
                    initContainers: [{ name: 'init', image: 'registry.example/init:1' }],
                    containers: [
                      { name: 'manager', image: 'registry.example/gadget:1.2.3' },
                      { name: 'proxy', image: 'registry.example/proxy:1' },
                    ],
                  },
                },
              },
            },
          ],
        },
      },
      relatedImages: [
        { name: 'proxy', image: 'registry.example/proxy:1' },
        { name: 'zeta', image: 'registry.example/aaa:1' },
      ],
    },
  };
  await writeBundle(dir, {
    packageName: 'gadget-operator',
    channels: ['stable', 'fast'],
    defaultChannel: 'stable',
    csv,
    objects: [crdV1beta1],
    dependencies: [
      { type: 'olm.package', value: { packageName: 'widget-operator', version: '>=0.1.0 <1.0.0' } },
      { type: 'olm.gvk', value: { group: 'widgets.example.com', kind: 'Widget', version: 'v1' } },
      { type: 'olm.label', value: { label: 'tier=<gold>' } },
    ],
    properties: [{ type: 'custom.property', value: { b: [1, 2.5, true, null], a: 'x&y' } }],
  });
}

describe('renderBundle agrees with opm render', () => {
  const valid = corpusCases().filter((c) => c.expected.passed);

  it.each(valid)('$name renders as opm renders it', async ({ path }) => {
    const stdout = await opmRender(path);
    expect(JSON.parse(stdout)).toStrictEqual(JSON.parse(JSON.stringify(renderBundle(path))));
    expect(formatOlmBundleJson(renderBundle(path))).toBe(stdout);
  });

  it('renders a bundle with dependencies, properties, required APIs and a v1beta1 CRD', async () => {
    const stdout = await opmRender(rich);
    expect(formatOlmBundleJson(renderBundle(rich))).toBe(stdout);
  });

  it('migrates bundle objects to olm.csv.metadata for an image, as --migrate-level does', async () => {
    for (const dir of [valid.find((c) => c.name === 'valid-memcached')!.path, rich]) {
      const blob = renderBundle(dir);
      const image = `registry.example/${blob.package}-bundle:v${(blob.properties.find((p) => p.type === 'olm.package')!.value as { version: string }).version}`;
      const stdout = await opmRender(
        dir,
        '--alpha-image-ref-template',
        'registry.example/{{.Package}}-bundle:v{{.Version}}',
        '--migrate-level',
        'bundle-object-to-csv-metadata',
      );
      const ours = renderBundle(dir, { image, migrateLevel: 'bundle-object-to-csv-metadata' });
      expect(JSON.parse(stdout)).toStrictEqual(JSON.parse(JSON.stringify(ours)));
      expect(ours.properties.some((p) => p.type === 'olm.bundle.object')).toBe(false);
    }
  });

  it('writes YAML as opm render -o yaml does: a createdAt without a zone, related images sharing an image', async () => {
    const dir = valid.find((c) => c.name === 'created-at-and-shared-related-images')!.path;
    const image = 'registry.example/widget-operator-bundle:v0.1.0';
    const stdout = await opmRender(
      dir,
      '-o',
      'yaml',
      '--alpha-image-ref-template',
      'registry.example/{{.Package}}-bundle:v{{.Version}}',
      '--migrate-level',
      'bundle-object-to-csv-metadata',
    );
    const blob = renderBundle(dir, { image, migrateLevel: 'bundle-object-to-csv-metadata' });
    const ours = serializeCatalog(parseCatalogContent(formatOlmBundleJson(blob)), { format: 'yaml' });
    expect(ours).toContain('createdAt: 2021-01-01T00:00:00\n');
    expect(ours).toBe(stdout);
  });

  it('renders the bundle generated from the Memcached operator like the committed corpus copy', async () => {
    const text = readFileSync(new URL('./fixtures/memcached-manifests.yaml', import.meta.url), 'utf8');
    const objects = parseAllDocuments(text).map((d) => d.toJS() as Manifest);
    const generated = generateCsv({
      base: findBaseCsv(objects, 'memcached-operator')!,
      objects,
      version: '0.1.0',
      operatorImage: 'registry.example/memcached-operator:0.1.0',
    });
    const dir = join(scratch, 'memcached');
    await writeBundle(dir, {
      packageName: 'memcached-operator',
      channels: ['alpha'],
      defaultChannel: 'alpha',
      csv: generated.csv,
      objects: generated.manifests,
    });
    const committed = valid.find((c) => c.name === 'valid-memcached')!.path;
    expect(await opmRender(dir)).toBe(await opmRender(committed));
  });

  /** The Memcached operator's project, found through its package as npm linked it into the workspace. */
  const memcachedOperatorDir = () =>
    dirname(createRequire(import.meta.url).resolve('@opkit/memcached-operator/package.json'));

  const kubectl = (() => {
    try {
      execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();

  it.runIf(kubectl)(
    'bundles the Memcached operator as kustomize renders it today: valid, and rendered as opm renders it',
    async () => {
      const root = join(memcachedOperatorDir(), 'config', 'manifests');
      const text = execFileSync('kubectl', ['kustomize', root], { encoding: 'utf8' });
      const objects = parseAllDocuments(text).map((d) => d.toJS() as Manifest);
      const generated = generateCsv({
        objects,
        packageName: 'memcached-operator',
        version: '0.1.0',
        operatorImage: 'registry.example/memcached-operator:0.1.0',
      });
      const dir = join(scratch, 'memcached-live');
      await writeBundle(dir, {
        packageName: 'memcached-operator',
        channels: ['alpha'],
        defaultChannel: 'alpha',
        csv: generated.csv,
        objects: generated.manifests,
      });
      const report = validateBundleDir(dir, { selectOptional: 'suite=operatorframework' });
      expect(report.results.flatMap((r) => r.errors).filter((e) => e.level === 'Error')).toStrictEqual([]);
      expect(report.passed).toBe(true);
      expect(formatOlmBundleJson(renderBundle(dir))).toBe(await opmRender(dir));
    },
  );
});
