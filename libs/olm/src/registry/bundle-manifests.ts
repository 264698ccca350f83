import type { ApiBundle } from './api.js';

/** A bundle's manifests: its CSV JSON and every object, as the API serves them. */
export interface BundleManifests {
  readonly csvJson: string;
  readonly object: string[];
}

/**
 * Where a bundle's manifests are read from when they stay in a file until a request asks for them (the serve
 * cache). A request reads them with `read`, off the event loop; `readSync` serves whoever reads the bundle's
 * fields directly.
 */
export interface ManifestSource {
  read(): Promise<BundleManifests>;
  readSync(): BundleManifests;
}

const SOURCE = Symbol('opkit.registry.manifestSource');

type WithSource = { readonly [SOURCE]?: ManifestSource };

const sourceOf = (value: unknown): ManifestSource | undefined =>
  typeof value === 'object' && value !== null ? (value as WithSource)[SOURCE] : undefined;

/**
 * `bundle` (its manifests left empty) with `csvJson` and `object` read from `source` whenever they are read,
 * and the source kept for {@link withManifestsRead}.
 */
export function bundleReadingFrom(bundle: ApiBundle, source: ManifestSource): ApiBundle {
  const out: ApiBundle = { ...bundle };
  Object.defineProperties(out, {
    csvJson: { get: () => source.readSync().csvJson, enumerable: true },
    object: { get: () => source.readSync().object, enumerable: true },
    [SOURCE]: { value: source },
  });
  return out;
}

/** A copy of `bundle` with `changes`, in the same key order; manifests kept in a file are not read. */
export function bundleWith(bundle: ApiBundle, changes: Partial<ApiBundle>): ApiBundle {
  const source = sourceOf(bundle);
  if (source === undefined) return { ...bundle, ...changes };
  return bundleReadingFrom({ ...withManifests(bundle, { csvJson: '', object: [] }), ...changes }, source);
}

/** A plain copy of `bundle`, in the same key order, with `manifests` in place of its own. */
function withManifests(bundle: ApiBundle, manifests: BundleManifests): ApiBundle {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(bundle) as (keyof ApiBundle)[]) {
    out[key] = key === 'csvJson' ? manifests.csvJson : key === 'object' ? manifests.object : bundle[key];
  }
  return out as unknown as ApiBundle;
}

/** `bundle` without its manifests, never reading them. */
export function withoutManifests(bundle: ApiBundle): ApiBundle {
  return withManifests(bundle, { csvJson: '', object: [] });
}

/**
 * `value` as a plain object: a bundle whose manifests are in a file gets them with one asynchronous read (its
 * getters would read the CSV twice, and block the event loop); anything else is returned as it is.
 */
export async function withManifestsRead<T>(value: T): Promise<T> {
  const source = sourceOf(value);
  if (source === undefined) return value;
  return withManifests(value as ApiBundle, await source.read()) as T;
}
