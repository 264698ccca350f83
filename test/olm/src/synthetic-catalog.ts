import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** One channel entry of a synthetic package: its version and its upgrade edges. */
export interface SyntheticEntry {
  readonly version: string;
  readonly replaces?: string;
  readonly skips?: readonly string[];
  readonly skipRange?: string;
  /** The versions its CRD serves, one of them stored. @default v1, stored */
  readonly crdVersions?: readonly { readonly name: string; readonly storage: boolean }[];
}

const DEFAULT_VERSIONS = [{ name: 'v1', storage: true }] as const;

/** A small operator package whose bundles OLM can install on the local control plane. */
export interface SyntheticPackage {
  /** e.g. `gadget-operator`; its API is `<Kind>` in group `<name>.upgrades.example.com`. */
  readonly name: string;
  readonly kind: string;
  readonly channel: string;
  readonly entries: readonly SyntheticEntry[];
}

const csvName = (pkg: string, version: string) => `${pkg}.v${version}`;
const inline = (object: object) => ({
  type: 'olm.bundle.object',
  value: { data: Buffer.from(JSON.stringify(object)).toString('base64') },
});

function customResourceDefinition(pkg: SyntheticPackage, entry: SyntheticEntry) {
  const group = `${pkg.name}.upgrades.example.com`;
  const plural = `${pkg.kind.toLowerCase()}s`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      names: { kind: pkg.kind, listKind: `${pkg.kind}List`, plural, singular: pkg.kind.toLowerCase() },
      scope: 'Namespaced',
      versions: (entry.crdVersions ?? DEFAULT_VERSIONS).map((v) => ({
        name: v.name,
        served: true,
        storage: v.storage,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      })),
    },
  };
}

function clusterServiceVersion(pkg: SyntheticPackage, entry: SyntheticEntry) {
  const group = `${pkg.name}.upgrades.example.com`;
  const plural = `${pkg.kind.toLowerCase()}s`;
  const labels = { 'app.kubernetes.io/name': pkg.name };
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: {
      name: csvName(pkg.name, entry.version),
      ...(entry.skipRange ? { annotations: { 'olm.skipRange': entry.skipRange } } : {}),
    },
    spec: {
      displayName: pkg.name,
      version: entry.version,
      ...(entry.replaces ? { replaces: csvName(pkg.name, entry.replaces) } : {}),
      ...(entry.skips ? { skips: entry.skips.map((v) => csvName(pkg.name, v)) } : {}),
      installModes: ['OwnNamespace', 'SingleNamespace', 'MultiNamespace', 'AllNamespaces'].map((type) => ({
        type,
        supported: true,
      })),
      customresourcedefinitions: {
        owned: (entry.crdVersions ?? DEFAULT_VERSIONS).map((v) => ({
          name: `${plural}.${group}`,
          version: v.name,
          kind: pkg.kind,
          displayName: pkg.kind,
          description: `A ${pkg.kind}.`,
        })),
      },
      install: {
        strategy: 'deployment',
        spec: {
          permissions: [
            {
              serviceAccountName: pkg.name,
              rules: [{ apiGroups: [group], resources: [plural], verbs: ['get', 'list', 'watch'] }],
            },
          ],
          deployments: [
            {
              name: pkg.name,
              spec: {
                replicas: 1,
                selector: { matchLabels: labels },
                template: {
                  metadata: { labels },
                  spec: {
                    serviceAccountName: pkg.name,
                    // A stand-in manager that only stays up: what these packages test is OLM's resolution.
                    containers: [
                      {
                        name: 'manager',
                        image: 'docker.io/library/busybox:1.35',
                        command: ['sleep', '86400'],
                      },
                    ],
                  },
                },
              },
            },
          ],
        },
      },
    },
  };
}

/**
 * One synthetic bundle as a registry+v1 bundle directory (`manifests/` with its CRD and CSV as YAML-compatible
 * JSON, `metadata/annotations.yaml`), for building a bundle image of it.
 */
export function writeSyntheticBundle(dir: string, pkg: SyntheticPackage, entry: SyntheticEntry): void {
  const crd = customResourceDefinition(pkg, entry);
  mkdirSync(join(dir, 'manifests'), { recursive: true });
  mkdirSync(join(dir, 'metadata'), { recursive: true });
  writeFileSync(join(dir, 'manifests', `${crd.metadata.name}.yaml`), `${JSON.stringify(crd, null, 2)}\n`);
  writeFileSync(
    join(dir, 'manifests', `${pkg.name}.clusterserviceversion.yaml`),
    `${JSON.stringify(clusterServiceVersion(pkg, entry), null, 2)}\n`,
  );
  writeFileSync(
    join(dir, 'metadata', 'annotations.yaml'),
    [
      'annotations:',
      '  operators.operatorframework.io.bundle.mediatype.v1: registry+v1',
      '  operators.operatorframework.io.bundle.manifests.v1: manifests/',
      '  operators.operatorframework.io.bundle.metadata.v1: metadata/',
      `  operators.operatorframework.io.bundle.package.v1: ${pkg.name}`,
      `  operators.operatorframework.io.bundle.channels.v1: ${pkg.channel}`,
      `  operators.operatorframework.io.bundle.channel.default.v1: ${pkg.channel}`,
      '',
    ].join('\n'),
  );
}

/**
 * Writes a file-based catalog of synthetic packages, every bundle inline (`image: ""`) so OLM installs it
 * without pulling bundle images. The operators' Deployments run a busybox that only sleeps, so each CSV can
 * succeed.
 */
export function writeSyntheticCatalog(dir: string, packages: readonly SyntheticPackage[]): void {
  for (const pkg of packages) {
    const blobs: object[] = [
      { schema: 'olm.package', name: pkg.name, defaultChannel: pkg.channel },
      {
        schema: 'olm.channel',
        package: pkg.name,
        name: pkg.channel,
        entries: pkg.entries.map((entry) => ({
          name: csvName(pkg.name, entry.version),
          ...(entry.replaces ? { replaces: csvName(pkg.name, entry.replaces) } : {}),
          ...(entry.skips ? { skips: entry.skips.map((v) => csvName(pkg.name, v)) } : {}),
          ...(entry.skipRange ? { skipRange: entry.skipRange } : {}),
        })),
      },
      ...pkg.entries.map((entry) => {
        const crd = customResourceDefinition(pkg, entry);
        return {
          schema: 'olm.bundle',
          package: pkg.name,
          name: csvName(pkg.name, entry.version),
          image: '',
          properties: [
            { type: 'olm.package', value: { packageName: pkg.name, version: entry.version } },
            ...crd.spec.versions.map((v) => ({
              type: 'olm.gvk',
              value: { group: crd.spec.group, kind: pkg.kind, version: v.name },
            })),
            inline(crd),
            inline(clusterServiceVersion(pkg, entry)),
          ],
        };
      }),
    ];
    mkdirSync(join(dir, pkg.name), { recursive: true });
    writeFileSync(
      join(dir, pkg.name, 'catalog.json'),
      `${blobs.map((b) => JSON.stringify(b, null, 2)).join('\n')}\n`,
    );
  }
}
