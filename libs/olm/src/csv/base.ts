import {
  type ClusterServiceVersion,
  CSV_API_VERSION,
  CSV_KIND,
  type InstallMode,
} from '../manifest/cluster-service-version.js';
import type { Manifest } from '../manifest/manifest.js';

/** Install modes `operator-sdk generate kustomize manifests` puts into a fresh base: AllNamespaces only. */
export const DEFAULT_INSTALL_MODES: readonly InstallMode[] = [
  { type: 'OwnNamespace', supported: false },
  { type: 'SingleNamespace', supported: false },
  { type: 'MultiNamespace', supported: false },
  { type: 'AllNamespaces', supported: true },
];

/** Human-readable words of an identifier: `memcached-operator` → `Memcached Operator`, `containerPort` → `Container Port`. */
export function displayNameOf(identifier: string): string {
  return identifier
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[-_.\s]+/)
    .filter((w) => w.length > 0)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join(' ');
}

/**
 * The base CSV `operator-sdk` creates when a project has none (olm.md §2.3), including its placeholder
 * values (which the OperatorHub validator rejects: an empty icon element, example provider and maintainer).
 */
export function defaultBaseCsv(packageName: string): ClusterServiceVersion {
  const displayName = displayNameOf(packageName);
  return {
    apiVersion: CSV_API_VERSION,
    kind: CSV_KIND,
    metadata: {
      name: `${packageName}.v0.0.0`,
      namespace: 'placeholder',
      annotations: { 'alm-examples': '[]', capabilities: 'Basic Install' },
    },
    spec: {
      displayName,
      description: `${displayName} description. TODO.`,
      maturity: 'alpha',
      keywords: [packageName],
      links: [{ name: displayName, url: `https://${packageName}.domain` }],
      icon: [{ base64data: '', mediatype: '' }],
      provider: { name: 'Provider Name', url: 'https://your.domain' },
      maintainers: [{ name: 'Maintainer Name', email: 'your@email.com' }],
      installModes: DEFAULT_INSTALL_MODES.map((m) => ({ ...m })),
      install: { strategy: 'deployment', spec: { deployments: [] } },
    },
  };
}

/**
 * The base CSV among rendered objects, as the SDK picks it: the first ClusterServiceVersion named `<package>.*`
 * (or the only one when no package is given).
 */
export function findBaseCsv(
  objects: readonly Manifest[],
  packageName?: string,
): ClusterServiceVersion | undefined {
  const csvs = objects.filter((o) => o.kind === CSV_KIND) as ClusterServiceVersion[];
  if (packageName === undefined) return csvs.length === 1 ? csvs[0] : undefined;
  return csvs.find((c) => (c.metadata.name ?? '').startsWith(`${packageName}.`));
}
