import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { decodeGo } from '../go-compat/go-json-decode.js';
import { type ClusterServiceVersion, CSV_KIND } from '../manifest/cluster-service-version.js';
import { isRecord, type Manifest } from '../manifest/manifest.js';
import { tryParseVersionTolerant } from '../semver/index.js';
import { BundleAnnotation, REGISTRY_V1 } from './annotations.js';
import { readAnnotationsFile } from './annotations-file.js';
import { BundleDirectory } from './bundle-directory.js';
import { BundleFileRefusedError } from './bundle-file.js';
import { BundleError, type BundleProblem, formatBundleProblem } from './errors.js';
import { DEPENDENCIES_FILE, PROPERTIES_FILE } from './go-types.js';
import { isSupportedKind } from './supported-kinds.js';
import { parseYamlDocuments, yamlProblem } from './yaml.js';

/** One manifest file of a bundle. */
export interface BundleManifest {
  /** Path relative to the bundle directory, e.g. `manifests/memcached-operator.clusterserviceversion.yaml`. */
  readonly file: string;
  readonly object: Manifest;
  /** File size in bytes. */
  readonly size: number;
  /** Length of the gzip+base64 encoding of the file (what operator-framework/api sums up). */
  readonly compressedSize: number;
}

/** A bundle directory read back from disk. */
export interface LoadedBundle {
  /** Absolute path of the bundle directory. */
  readonly dir: string;
  readonly packageName: string;
  readonly channels: readonly string[];
  readonly defaultChannel?: string;
  /** Every key of `metadata/annotations.yaml`. */
  readonly annotations: Readonly<Record<string, string>>;
  readonly csv: ClusterServiceVersion;
  /** Every manifest, CSV included, in file-name order. */
  readonly manifests: readonly BundleManifest[];
  /** `metadata/dependencies.yaml` entries, if any. */
  readonly dependencies: readonly { readonly type: string; readonly value: unknown }[];
  /** `metadata/properties.yaml` entries, if any. */
  readonly properties: readonly { readonly type: string; readonly value: unknown }[];
}

/**
 * The bytes of a bundle file, or a problem when it is refused: larger than a bundle file may be, not a regular
 * file, or a symlink leading out of the bundle directory.
 */
function readFile(bundle: BundleDirectory, file: string, problems: BundleProblem[]): Buffer | undefined {
  try {
    return bundle.read(join(bundle.root, file));
  } catch (error) {
    if (!(error instanceof BundleFileRefusedError)) throw error;
    problems.push({ file, reason: error.reason });
    return undefined;
  }
}

/** Decoded documents of one file, or the problems found. */
function readObject(bytes: Buffer, file: string, problems: BundleProblem[]): Manifest | undefined {
  const docs = parseYamlDocuments(bytes.toString('utf8'));
  const bad = docs.find((d) => !d.ok);
  if (bad !== undefined && !bad.ok) {
    problems.push({ file, reason: yamlProblem(bad) });
    return undefined;
  }
  if (docs.length === 0) {
    problems.push({ file, reason: 'empty file: a bundle manifest holds exactly one object' });
    return undefined;
  }
  if (docs.length > 1) {
    problems.push({
      file,
      reason: `${docs.length} YAML documents: a bundle manifest holds exactly one object`,
    });
    return undefined;
  }
  const value = docs[0]!.ok ? docs[0]!.value : undefined;
  if (!isRecord(value)) {
    problems.push({ file, reason: 'not a mapping: a manifest must be a Kubernetes object' });
    return undefined;
  }
  let ok = true;
  for (const field of ['apiVersion', 'kind'] as const) {
    if (typeof value[field] !== 'string' || value[field] === '') {
      problems.push({ file, field, reason: 'missing or not a string' });
      ok = false;
    }
  }
  if (!isRecord(value.metadata) || typeof value.metadata.name !== 'string' || value.metadata.name === '') {
    problems.push({ file, field: 'metadata.name', reason: 'missing or not a string' });
    ok = false;
  }
  if (ok && !isSupportedKind(value.kind as string)) {
    problems.push({
      file,
      field: 'kind',
      reason: `${String(value.kind)} is not a supported kind for a registry+v1 bundle`,
    });
    ok = false;
  }
  return ok ? (value as Manifest) : undefined;
}

function readList(
  bundle: BundleDirectory,
  file: string,
  key: 'dependencies' | 'properties',
  problems: BundleProblem[],
): { type: string; value: unknown }[] {
  const bytes = readFile(bundle, file, problems);
  if (bytes === undefined) return [];
  const docs = parseYamlDocuments(bytes.toString('utf8'));
  const first = docs[0];
  if (first === undefined) return [];
  if (!first.ok) {
    problems.push({ file, reason: yamlProblem(first) });
    return [];
  }
  // Field names match case-insensitively (`Dependencies:`, `Type:`), as opm decodes these files.
  const type = key === 'dependencies' ? DEPENDENCIES_FILE : PROPERTIES_FILE;
  const list = isRecord(first.value)
    ? (decodeGo(first.value, type).value as Record<string, unknown>)[key]
    : undefined;
  if (!Array.isArray(list)) {
    problems.push({ file, field: key, reason: 'missing or not a list' });
    return [];
  }
  const out: { type: string; value: unknown }[] = [];
  list.forEach((item, i) => {
    if (!isRecord(item) || typeof item.type !== 'string' || item.value === undefined) {
      problems.push({ file, field: `${key}[${i}]`, reason: 'must have a string `type` and a `value`' });
      return;
    }
    out.push({ type: item.type, value: item.value });
  });
  return out;
}

/** `metadata/annotations.yaml` with the keys a registry+v1 bundle requires (what loading and image labels use). */
function readAnnotations(
  bundle: BundleDirectory,
  problems: BundleProblem[],
): Record<string, string> | undefined {
  const file = 'metadata/annotations.yaml';
  let bytes: Uint8Array;
  try {
    bytes = bundle.read(join(bundle.root, file));
  } catch (error) {
    if (error instanceof BundleFileRefusedError) {
      problems.push({ file, reason: error.reason });
      return undefined;
    }
    problems.push({ file, reason: 'missing: a bundle needs metadata/annotations.yaml' });
    return undefined;
  }
  const read = readAnnotationsFile(bytes);
  if (!read.ok) {
    problems.push({ file, reason: read.reason });
    return undefined;
  }
  if (read.annotations === undefined) {
    problems.push({ file, field: 'annotations', reason: 'missing or not a mapping' });
    return undefined;
  }
  const annotations = read.annotations;
  const out: Record<string, string> = { ...annotations };
  const required: [string, string | undefined][] = [
    [BundleAnnotation.mediaType, REGISTRY_V1],
    [BundleAnnotation.manifests, 'manifests/'],
    [BundleAnnotation.metadata, 'metadata/'],
    [BundleAnnotation.packageName, undefined],
    [BundleAnnotation.channels, undefined],
  ];
  for (const [key, expected] of required) {
    const value = out[key];
    if (value === undefined) {
      if (!(key in annotations)) problems.push({ file, field: key, reason: 'missing annotation' });
    } else if (expected !== undefined && value !== expected) {
      problems.push({
        file,
        field: key,
        reason: `expected ${JSON.stringify(expected)}, got ${JSON.stringify(value)}`,
      });
    } else if (value.trim() === '') {
      problems.push({ file, field: key, reason: 'must not be empty' });
    }
  }
  // A default channel outside the channels is accepted: opm renders such a bundle all the same (the default
  // channel is a package setting; the bundle's blob does not carry it).
  if (out[BundleAnnotation.defaultChannel] === '')
    problems.push({ file, field: BundleAnnotation.defaultChannel, reason: 'must not be empty' });
  return out;
}

/** Reads `manifests/` in file-name order: one object per plain file; sub-directories and hidden files are problems. */
function readManifests(bundle: BundleDirectory, problems: BundleProblem[]): BundleManifest[] {
  const manifests: BundleManifest[] = [];
  const entries = bundle
    .list(join(bundle.root, 'manifests'))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const file = `manifests/${entry.name}`;
    if (entry.isDirectory()) {
      problems.push({ file: `${file}/`, reason: 'sub-directories are not allowed in manifests/' });
      continue;
    }
    if (entry.name.startsWith('.')) {
      problems.push({ file, reason: 'hidden files are not allowed in manifests/' });
      continue;
    }
    const bytes = readFile(bundle, file, problems);
    if (bytes === undefined) continue;
    const object = readObject(bytes, file, problems);
    if (object === undefined) continue;
    manifests.push({
      file,
      object,
      size: bytes.length,
      compressedSize: gzipSync(bytes).toString('base64').length,
    });
  }
  if (entries.length === 0) problems.push({ file: 'manifests/', reason: 'no manifests' });
  return manifests;
}

/** The bundle's ClusterServiceVersion; none, a second one, or an unreadable `spec.version` is a problem. */
function findCsv(
  manifests: readonly BundleManifest[],
  problems: BundleProblem[],
): BundleManifest | undefined {
  const csvs = manifests.filter((m) => m.object.kind === CSV_KIND);
  // Without a CSV but with other problems, those problems are the likelier cause.
  if (csvs.length === 0 && problems.length === 0) {
    problems.push({ file: 'manifests/', reason: 'no ClusterServiceVersion found' });
  }
  const [csv, ...extras] = csvs;
  for (const extra of extras) {
    problems.push({
      file: extra.file,
      field: 'kind',
      reason: `a second ClusterServiceVersion (the first is ${csv?.file})`,
    });
  }
  if (csv !== undefined) {
    const spec = csv.object.spec;
    if (!isRecord(spec)) problems.push({ file: csv.file, field: 'spec', reason: 'missing or not a mapping' });
    else if (
      spec.version !== undefined &&
      (typeof spec.version !== 'string' || tryParseVersionTolerant(spec.version) === undefined)
    ) {
      problems.push({
        file: csv.file,
        field: 'spec.version',
        reason: `${JSON.stringify(spec.version)} is not a semantic version`,
      });
    }
  }
  return csv;
}

/** What `metadata/` holds: the annotations, and the optional dependencies and properties lists. */
interface BundleMetadata {
  readonly annotations: Record<string, string> | undefined;
  readonly dependencies: { type: string; value: unknown }[];
  readonly properties: { type: string; value: unknown }[];
}

function readMetadata(bundle: BundleDirectory, problems: BundleProblem[]): BundleMetadata {
  const annotations = readAnnotations(bundle, problems);
  const names = bundle.list(join(bundle.root, 'metadata')).map((e) => e.name);
  return {
    annotations,
    dependencies: names.includes('dependencies.yaml')
      ? readList(bundle, 'metadata/dependencies.yaml', 'dependencies', problems)
      : [],
    properties: names.includes('properties.yaml')
      ? readList(bundle, 'metadata/properties.yaml', 'properties', problems)
      : [],
  };
}

/**
 * Reads a registry+v1 bundle directory and checks its structure: `manifests/` flat (no sub-directories, no
 * hidden files), one Kubernetes object of a supported kind per file, exactly one ClusterServiceVersion, and
 * `metadata/annotations.yaml` with the required keys.
 *
 * @throws {BundleError} `OLM_BUNDLE_MALFORMED` listing every problem (file, field, reason).
 */
export function loadBundle(dir: string): LoadedBundle {
  const root = resolve(dir);
  const bundle = new BundleDirectory(root);
  const problems: BundleProblem[] = [];
  if (!bundle.isDirectory()) {
    throw new BundleError('OLM_BUNDLE_MALFORMED', `${root} is not a directory`, [
      { file: '.', reason: 'not a directory' },
    ]);
  }
  const usable = (sub: string): boolean => !bundle.leadsOut(sub) && bundle.isDirectory(sub);
  for (const sub of ['manifests', 'metadata']) {
    if (bundle.leadsOut(sub))
      problems.push({ file: `${sub}/`, reason: 'a symlink that leads out of the bundle directory' });
    else if (!bundle.isDirectory(sub))
      problems.push({ file: `${sub}/`, reason: `missing directory: a bundle needs ${sub}/` });
  }
  const manifests = usable('manifests') ? readManifests(bundle, problems) : [];
  const csv = findCsv(manifests, problems);
  const { annotations, dependencies, properties }: BundleMetadata = usable('metadata')
    ? readMetadata(bundle, problems)
    : { annotations: undefined, dependencies: [], properties: [] };
  if (problems.length > 0 || csv === undefined || annotations === undefined) throw malformed(root, problems);
  const defaultChannel = annotations[BundleAnnotation.defaultChannel];
  return {
    dir: root,
    packageName: annotations[BundleAnnotation.packageName]!,
    channels: annotations[BundleAnnotation.channels]!.split(',').map((c) => c.trim()),
    ...(defaultChannel !== undefined ? { defaultChannel } : {}),
    annotations,
    csv: csv.object as ClusterServiceVersion,
    manifests,
    dependencies,
    properties,
  };
}

/**
 * The annotations of a bundle directory's `metadata/annotations.yaml` (also its image labels), checked as
 * {@link loadBundle} checks them, without reading the manifests.
 *
 * @throws {BundleError} `OLM_BUNDLE_MALFORMED` listing every problem (file, field, reason).
 */
export function readBundleAnnotations(dir: string): Record<string, string> {
  const root = resolve(dir);
  const problems: BundleProblem[] = [];
  const annotations = readAnnotations(new BundleDirectory(root), problems);
  if (problems.length > 0 || annotations === undefined) throw malformed(root, problems);
  return annotations;
}

function malformed(root: string, problems: readonly BundleProblem[]): BundleError {
  return new BundleError(
    'OLM_BUNDLE_MALFORMED',
    `malformed bundle ${root}:\n${problems.map((p) => `  ${formatBundleProblem(p)}`).join('\n')}`,
    problems,
  );
}
