import type { LoadedBundle } from '../bundle/load.js';
import type { ClusterServiceVersion } from '../manifest/cluster-service-version.js';
import type { Manifest } from '../manifest/manifest.js';

/**
 * What the bundle-level validators look at (operator-framework/api `manifests.Bundle`).
 */
export interface ValidationBundle {
  /** Bundle name: the CSV's `metadata.name`. */
  readonly name: string;
  /** Package from the annotations (empty when the bundle was read from its manifests only, as the SDK does). */
  readonly packageName: string;
  /** Channels from the annotations (`[""]` when unknown, as upstream's loader leaves them). */
  readonly channels: readonly string[];
  readonly defaultChannel: string;
  readonly csv?: ClusterServiceVersion;
  /** Every manifest, including the CSV and the CRDs. */
  readonly objects: readonly Manifest[];
  /** Sum over the manifest files of the length of their gzip+base64 encoding (0 = unknown). */
  readonly compressedSize: number;
  /** Sum of the manifest file sizes in bytes (0 = unknown). */
  readonly size: number;
}

/** Optional inputs of the validators (`--optional-values`): `k8s-version`, … */
export type OptionalValues = Readonly<Record<string, string>>;

/** The `apiextensions.k8s.io/v1` CRDs of a bundle. */
export function v1Crds(bundle: ValidationBundle): Manifest[] {
  return bundle.objects.filter(
    (o) => o.kind === 'CustomResourceDefinition' && o.apiVersion === 'apiextensions.k8s.io/v1',
  );
}

/** The `apiextensions.k8s.io/v1beta1` CRDs of a bundle. */
export function v1beta1Crds(bundle: ValidationBundle): Manifest[] {
  return bundle.objects.filter(
    (o) => o.kind === 'CustomResourceDefinition' && o.apiVersion === 'apiextensions.k8s.io/v1beta1',
  );
}

/**
 * The validator input for a bundle read with `loadBundle` — unlike operator-sdk's view, with the package and
 * channels of its annotations (so the channel-naming good practice applies).
 */
export function validationBundleOf(loaded: LoadedBundle): ValidationBundle {
  return {
    name: loaded.csv.metadata.name ?? '',
    packageName: loaded.packageName,
    channels: loaded.channels,
    defaultChannel: loaded.defaultChannel ?? '',
    csv: loaded.csv,
    objects: loaded.manifests.map((m) => m.object),
    compressedSize: loaded.manifests.reduce((n, m) => n + m.compressedSize, 0),
    size: loaded.manifests.reduce((n, m) => n + m.size, 0),
  };
}
