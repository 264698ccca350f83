// opm's catalog migrations (`--migrate-level` of `opm render`, `opm migrate` and `opm alpha render-template`):
// rewrites of a rendered catalog into a newer shape, run in order up to the level asked for.

import { decodeGoBase64 } from '../../go-compat/go-base64.js';
import type { GoStruct } from '../../go-compat/go-json.js';
import type { Manifest } from '../../manifest/manifest.js';
import { yamlLibrary } from '../../yaml-library.js';
import { csvMetadataOf } from './csv-metadata.js';
import { CatalogError } from './errors.js';
import { PROPERTY_BUNDLE_OBJECT, PROPERTY_CSV_METADATA } from './properties.js';
import type { BundleBlob, Catalog } from './types.js';

/** The migrations opm v1.73 knows, in the order they run; `none` does nothing. */
export const MIGRATION_LEVELS = ['none', 'bundle-object-to-csv-metadata'] as const;
export type MigrationLevel = (typeof MIGRATION_LEVELS)[number];

/** What `--migrate-level` accepts: a level, or `all` (every migration). */
export function parseMigrationLevel(name: string): MigrationLevel {
  if (name === 'all') return MIGRATION_LEVELS[MIGRATION_LEVELS.length - 1] as MigrationLevel;
  if ((MIGRATION_LEVELS as readonly string[]).includes(name)) return name as MigrationLevel;
  throw new CatalogError(
    'CATALOG_INVALID',
    `unknown migration level "${name}" (one of: ${[...MIGRATION_LEVELS, 'all'].join(', ')})`,
  );
}

/** The CSV among a bundle's `olm.bundle.object` properties, as opm's loader finds it (the first of its kind). */
function csvOf(bundle: BundleBlob): Manifest | undefined {
  for (const p of bundle.properties) {
    if (p.type !== PROPERTY_BUNDLE_OBJECT) continue;
    const data = (p.value as { data?: unknown } | null)?.data;
    if (typeof data !== 'string') continue;
    try {
      const obj = yamlLibrary().parse(Buffer.from(decodeGoBase64(data)).toString('utf8'), {
        maxAliasCount: 100,
      }) as unknown;
      if ((obj as Manifest | null)?.kind === 'ClusterServiceVersion') return obj as Manifest;
    } catch {
      // not an object opm could read either: it is not the CSV
    }
  }
  return undefined;
}

/** A JSON object written in insertion order, as Go writes a struct; arrays and nested objects likewise. */
function struct(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(struct);
  if (value === null || typeof value !== 'object') return value;
  return new Map(Object.entries(value).map(([k, v]) => [k, struct(v)]));
}

/**
 * The `olm.csv.metadata` value as opm marshals it: field by field in the order of operator-registry's
 * `CSVMetadata` struct (which csvMetadataOf builds), except its two maps, `annotations` and `labels`, whose keys
 * Go writes sorted.
 */
function csvMetadataStruct(metadata: Record<string, unknown>): GoStruct {
  return new Map(
    Object.entries(metadata).map(([k, v]) => [k, k === 'annotations' || k === 'labels' ? v : struct(v)]),
  );
}

/**
 * `bundle-object-to-csv-metadata`: a bundle that has an image and carries its manifests as `olm.bundle.object`
 * properties keeps only the CSV's metadata (`olm.csv.metadata`, appended last); OLM then pulls the manifests
 * from the image. Bundles without an image, without a CSV or with an `olm.csv.metadata` already are kept.
 */
function bundleObjectToCsvMetadata(bundle: BundleBlob): BundleBlob {
  if (bundle.image === '') return bundle;
  if (bundle.properties.some((p) => p.type === PROPERTY_CSV_METADATA)) return bundle;
  const csv = csvOf(bundle);
  if (!csv) return bundle;
  return {
    ...bundle,
    properties: [
      ...bundle.properties.filter((p) => p.type !== PROPERTY_BUNDLE_OBJECT),
      { type: PROPERTY_CSV_METADATA, value: csvMetadataStruct(csvMetadataOf(csv)) },
    ],
  };
}

/** Runs every migration up to and including `level` on a copy of the catalog. */
export function migrateCatalog(catalog: Catalog, level: MigrationLevel): Catalog {
  const upTo = MIGRATION_LEVELS.indexOf(level);
  let out = catalog;
  if (upTo >= MIGRATION_LEVELS.indexOf('bundle-object-to-csv-metadata')) {
    out = { ...out, bundles: out.bundles.map(bundleObjectToCsvMetadata) };
  }
  return out;
}
