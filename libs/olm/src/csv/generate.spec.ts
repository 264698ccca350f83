import { describe, expect, it } from 'vitest';
import type { ClusterServiceVersion } from '../manifest/cluster-service-version.js';
import type { Manifest } from '../manifest/manifest.js';
import { DEFAULT_INSTALL_MODES, defaultBaseCsv } from './base.js';
import { CsvError } from './errors.js';
import { generateCsv } from './generate.js';
import { demoBaseCsv, demoOperatorObjects } from './testing.js';

const generate = (overrides: Partial<Parameters<typeof generateCsv>[0]> = {}) =>
  generateCsv({
    base: demoBaseCsv(),
    objects: demoOperatorObjects(),
    version: '0.1.0',
    operatorImage: 'registry.example/demo:0.1.0',
    createdAt: '2026-11-21T10:00:00.123Z',
    ...overrides,
  });

const deployment = {
  name: 'demo-controller-manager',
  label: { app: 'demo' },
  spec: {
    selector: { matchLabels: { app: 'demo' } },
    template: {
      metadata: { labels: { app: 'demo' } },
      spec: {
        serviceAccountName: 'demo-controller-manager',
        containers: [
          {
            name: 'manager',
            image: 'registry.example/demo:0.1.0',
            env: [
              { name: 'RELATED_IMAGE_GIZMO_SERVER', value: 'registry.example/gizmo-server:2.0' },
              {
                name: 'WATCH_NAMESPACE',
                valueFrom: { fieldRef: { fieldPath: "metadata.annotations['olm.targetNamespaces']" } },
              },
            ],
            resources: { requests: { cpu: '10m', memory: '64Mi' } },
          },
        ],
      },
    },
  },
};

describe('generateCsv', () => {
  it('fills the install strategy, owned CRDs, examples, related images and version from the objects', () => {
    // GIVEN the demo operator's rendered objects and its hand-written base
    // WHEN a CSV is generated for 0.1.0
    const { csv, warnings } = generate();
    // THEN generated fields are filled in and everything hand-written is kept
    expect(warnings).toStrictEqual([]);
    expect(csv).toStrictEqual({
      apiVersion: 'operators.coreos.com/v1alpha1',
      kind: 'ClusterServiceVersion',
      metadata: {
        name: 'demo-operator.v0.1.0',
        namespace: 'placeholder',
        annotations: {
          capabilities: 'Seamless Upgrades',
          categories: 'Developer Tools',
          'example.com/team': 'gizmos',
          'alm-examples':
            '[\n  {\n    "apiVersion": "demo.example.com/v1",\n    "kind": "Gizmo",\n    "metadata": {\n      "name": "gizmo-sample"\n    },\n    "spec": {\n      "replicas": 2\n    }\n  }\n]',
          createdAt: '2026-11-21T10:00:00Z',
          containerImage: 'registry.example/demo:0.1.0',
        },
        labels: { 'operatorframework.io/arch.amd64': 'supported' },
      },
      spec: {
        displayName: 'Demo Operator',
        description: 'Runs gizmos.\n\nHand-written *markdown*.',
        icon: [{ base64data: 'PHN2Zy8+', mediatype: 'image/svg+xml' }],
        keywords: ['gizmo', 'demo'],
        maintainers: [{ name: 'Demo Team', email: 'demo@example.com' }],
        links: [{ name: 'Docs', url: 'https://example.com/demo' }],
        provider: { name: 'Example Inc.', url: 'https://example.com' },
        maturity: 'beta',
        minKubeVersion: '1.28.0',
        replaces: 'demo-operator.v0.0.9',
        installModes: [
          { type: 'OwnNamespace', supported: true },
          { type: 'SingleNamespace', supported: true },
          { type: 'MultiNamespace', supported: false },
          { type: 'AllNamespaces', supported: true },
        ],
        customresourcedefinitions: {
          owned: [
            {
              name: 'gizmos.demo.example.com',
              version: 'v1',
              kind: 'Gizmo',
              displayName: 'Gizmo',
              description: 'A gizmo, described by hand.',
              resources: [{ kind: 'Deployment', name: '', version: 'v1' }],
              specDescriptors: [
                {
                  path: 'replicas',
                  displayName: 'Replicas',
                  'x-descriptors': ['urn:alm:descriptor:com.tectonic.ui:podCount'],
                },
                {
                  path: 'tuning.maxConnections',
                  displayName: 'Max Connections',
                  description: 'Connection cap.',
                },
              ],
              statusDescriptors: [
                {
                  path: 'conditions',
                  displayName: 'Conditions',
                  description: 'Conditions.',
                  'x-descriptors': ['urn:alm:descriptor:io.kubernetes.conditions'],
                },
              ],
            },
            {
              name: 'gizmos.demo.example.com',
              version: 'v1alpha1',
              kind: 'Gizmo',
              displayName: 'Gizmo',
              description: 'Gizmo is the old API.',
            },
          ],
          required: [
            {
              name: 'widgets.example.com',
              version: 'v1',
              kind: 'Widget',
              displayName: 'Widget',
              description: 'Needed.',
            },
          ],
        },
        relatedImages: [
          { name: 'docs', image: 'registry.example/demo-docs:1.0' },
          { name: 'gizmo-server', image: 'registry.example/gizmo-server:2.0' },
          { name: 'manager', image: 'registry.example/demo:0.1.0' },
        ],
        install: {
          strategy: 'deployment',
          spec: {
            deployments: [deployment],
            permissions: [
              {
                serviceAccountName: 'demo-controller-manager',
                rules: [
                  {
                    apiGroups: ['coordination.k8s.io'],
                    resources: ['leases'],
                    verbs: ['get', 'create', 'update'],
                  },
                ],
              },
            ],
            clusterPermissions: [
              {
                serviceAccountName: 'demo-controller-manager',
                rules: [
                  { apiGroups: ['demo.example.com'], resources: ['gizmos'], verbs: ['get', 'list', 'watch'] },
                ],
              },
            ],
          },
        },
        version: '0.1.0',
      },
    });
  });

  it('ships CRDs, Services and RBAC not folded into the CSV, without namespaces', () => {
    const { manifests } = generate();
    expect(manifests.map((m) => `${m.kind}/${m.metadata.name}`)).toStrictEqual([
      'CustomResourceDefinition/gizmos.demo.example.com',
      'ClusterRole/demo-gizmo-viewer-role',
      'ClusterRoleBinding/demo-manager-rolebinding',
      'Service/demo-metrics',
    ]);
    expect(manifests.find((m) => m.kind === 'ClusterRoleBinding')!.subjects).toStrictEqual([
      { kind: 'Group', name: 'auditors' },
    ]);
    expect(manifests.every((m) => m.metadata.namespace === undefined)).toBe(true);
  });

  it('keeps every hand-written field of the base when regenerated for the next version', () => {
    // GIVEN a CSV generated for 0.1.0, used as the base of the next run (the SDK's regeneration path)
    const first = generate().csv;
    // WHEN regenerated for 0.2.0 with a new upgrade edge
    const second = generate({
      base: first,
      version: '0.2.0',
      replaces: 'demo-operator.v0.1.0',
      skipRange: '>=0.0.1 <0.2.0',
    }).csv;
    // THEN only the version-bound fields change
    const { metadata, spec } = second;
    expect(metadata.name).toBe('demo-operator.v0.2.0');
    expect(spec.version).toBe('0.2.0');
    expect(spec.replaces).toBe('demo-operator.v0.1.0');
    expect(metadata.annotations?.['olm.skipRange']).toBe('>=0.0.1 <0.2.0');
    const strip = (csv: ClusterServiceVersion) => {
      const copy = structuredClone(csv);
      delete copy.metadata.name;
      delete copy.metadata.annotations?.['olm.skipRange'];
      delete copy.spec.version;
      delete copy.spec.replaces;
      return copy;
    };
    expect(strip(second)).toStrictEqual(strip(first));
  });

  it('keeps replaces, skips and skipRange of the base unless told otherwise', () => {
    const base = demoBaseCsv();
    base.spec.skips = ['demo-operator.v0.0.8'];
    base.metadata.annotations!['olm.skipRange'] = '<0.0.9';
    const kept = generate({ base }).csv;
    expect([kept.spec.replaces, kept.spec.skips, kept.metadata.annotations?.['olm.skipRange']]).toStrictEqual(
      ['demo-operator.v0.0.9', ['demo-operator.v0.0.8'], '<0.0.9'],
    );
    const removed = generate({ base, replaces: null, skips: null, skipRange: null }).csv;
    expect([
      removed.spec.replaces,
      removed.spec.skips,
      removed.metadata.annotations?.['olm.skipRange'],
    ]).toStrictEqual([undefined, undefined, undefined]);
  });

  it('takes minKubeVersion from the input over the base', () => {
    expect(generate({ minKubeVersion: '1.30.0' }).csv.spec.minKubeVersion).toBe('1.30.0');
  });

  it('finds the base among the objects and derives the package from its name', () => {
    const objects: Manifest[] = [...demoOperatorObjects(), demoBaseCsv()];
    const { csv } = generateCsv({ objects, version: '1.0.0' });
    expect(csv.metadata.name).toBe('demo-operator.v1.0.0');
    expect(csv.spec.displayName).toBe('Demo Operator');
  });

  it("starts from the SDK's default base when there is none, with AllNamespaces only", () => {
    const { csv } = generateCsv({
      packageName: 'demo-operator',
      objects: demoOperatorObjects(),
      version: '0.1.0',
    });
    expect(csv.spec.installModes).toStrictEqual(DEFAULT_INSTALL_MODES);
    expect(csv.spec.displayName).toBe('Demo Operator');
    expect(csv.spec.icon).toStrictEqual(defaultBaseCsv('demo-operator').spec.icon);
    expect(csv.metadata.annotations?.capabilities).toBe('Basic Install');
  });

  it('keeps the createdAt of the base when none is given, for reproducible output', () => {
    const base = demoBaseCsv();
    base.metadata.annotations!.createdAt = '2026-01-01T00:00:00Z';
    expect(generate({ base, createdAt: undefined }).csv.metadata.annotations?.createdAt).toBe(
      '2026-01-01T00:00:00Z',
    );
  });

  it('rejects a version that is not strict semver', () => {
    expect(() => generate({ version: 'v0.1' })).toThrow(
      expect.objectContaining({
        code: 'OLM_CSV_INPUT_INVALID',
        message: 'invalid version "v0.1": No Major.Minor.Patch elements found',
      }),
    );
  });

  it('refuses a CSV that fails the CSV validator, with the findings', () => {
    const base = demoBaseCsv();
    base.spec.installModes = [{ type: 'AllNamespaces', supported: false }];
    try {
      generate({ base });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(CsvError);
      expect((error as CsvError).code).toBe('OLM_CSV_INVALID');
      expect((error as CsvError).message).toBe(
        'invalid generated ClusterServiceVersion:\n  Error: Value : (demo-operator.v0.1.0) none of InstallModeTypes are supported',
      );
    }
  });

  it('rejects a RELATED_IMAGE_ variable set through valueFrom', () => {
    const objects = demoOperatorObjects();
    const dep = objects.find((o) => o.kind === 'Deployment')!;
    (
      dep.spec as { template: { spec: { containers: { env: unknown[] }[] } } }
    ).template.spec.containers[0]!.env.push({
      name: 'RELATED_IMAGE_X',
      valueFrom: { configMapKeyRef: { name: 'x', key: 'y' } },
    });
    expect(() => generate({ objects })).toThrow(
      'related images with valueFrom field unsupported, found in deployment demo-controller-manager, container manager',
    );
  });

  it('drops objects a bundle cannot carry, with a warning', () => {
    const objects = [
      ...demoOperatorObjects(),
      { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'migrate' } },
    ];
    expect(generate({ objects }).warnings).toStrictEqual([
      'Job "migrate" dropped: not a supported kind for a registry+v1 bundle',
    ]);
  });
});
