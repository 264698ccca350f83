import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { BundleAnnotation, REGISTRY_V1 } from '../bundle/annotations.js';
import { BundleDirectory } from '../bundle/bundle-directory.js';
import { DEPENDENCIES_FILE, DEPENDENCY_VALUES } from '../bundle/go-types.js';
import { parseYamlDocuments } from '../bundle/yaml.js';
import { byteOrder, goQuote } from '../go-compat/go-format.js';
import { decodeGo } from '../go-compat/go-json-decode.js';
import { isRecord } from '../manifest/manifest.js';
import { tryParseVersion } from '../semver/index.js';

/** Go's `filepath.Join`: joined and cleaned. */
export function goJoin(...parts: string[]): string {
  const joined = parts.filter((p) => p !== '').join('/');
  const absolute = joined.startsWith('/');
  const out: string[] = [];
  for (const seg of joined.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..' && out.length > 0 && out[out.length - 1] !== '..') out.pop();
    else if (seg !== '..' || !absolute) out.push(seg);
  }
  const path = out.join('/');
  return absolute ? `/${path}` : path === '' ? '.' : path;
}

function entries(dir: string): { name: string; isDir: boolean }[] {
  try {
    return (
      readdirSync(dir, { withFileTypes: true })
        .map((e) => {
          let isDir = e.isDirectory();
          if (e.isSymbolicLink()) {
            try {
              isDir = statSync(join(dir, e.name)).isDirectory();
            } catch {
              isDir = false;
            }
          }
          return { name: e.name, isDir };
        })
        // os.ReadDir lists by name in byte order.
        .sort((a, b) => byteOrder(a.name, b.name))
    );
  } catch {
    return [];
  }
}

/** The first YAML/JSON document of a file (read within its own directory), or `undefined` when it does not decode. */
export function firstDocument(path: string): unknown {
  let text: string;
  try {
    text = new BundleDirectory(dirname(path)).readText(path);
  } catch {
    return undefined;
  }
  const first = parseYamlDocuments(text)[0];
  return first?.ok ? first.value : undefined;
}

/**
 * opm `GetMediaType`: `registry+v1` when a file of the directory is a ClusterServiceVersion, `plain`
 * otherwise; an error when it has no files.
 */
export function bundleMediaType(manifestsDir: string): { mediaType: string } | { error: string } {
  const files = entries(manifestsDir).filter((e) => !e.isDir);
  if (files.length === 0) return { error: `The directory ${manifestsDir} contains no yaml files` };
  for (const f of files) {
    const doc = firstDocument(join(manifestsDir, f.name));
    if (isRecord(doc) && doc.kind === 'ClusterServiceVersion') return { mediaType: REGISTRY_V1 };
  }
  return { mediaType: 'plain' };
}

/** blang `ParseRange` validity (comparators with optional `.x` wildcards, AND by space, OR by `||`). */
function isValidRange(range: string): boolean {
  const parts = range.split('||').map((p) => p.trim());
  if (parts.some((p) => p === '')) return false;
  return parts.every((part) =>
    part
      .replace(/([<>=!]+)\s+/g, '$1')
      .split(/\s+/)
      .every((comparator) => {
        const m = /^(<=|>=|==|!=|<|>|=|!)?(.+)$/.exec(comparator);
        if (m === null) return false;
        const version = m[2]!.replace(/\.x$/, '.0').replace(/\.x\./, '.0.');
        const padded = /^\d+\.\d+$/.test(version) ? `${version}.0` : version;
        return tryParseVersion(padded) !== undefined;
      }),
  );
}

function dependencyErrors(dependencies: unknown[]): string[] {
  const errs: string[] = [];
  for (const raw of dependencies) {
    const dep = isRecord(raw) ? raw : {};
    const type = typeof dep.type === 'string' ? dep.type : '';
    // Values decode into operator-registry's structs: field names match case-insensitively.
    const goType = DEPENDENCY_VALUES[type];
    const decoded = goType === undefined ? undefined : decodeGo(dep.value, goType);
    const value =
      decoded !== undefined && decoded.error === undefined && isRecord(decoded.value)
        ? decoded.value
        : undefined;
    const s = (v: unknown) => (typeof v === 'string' ? v : '');
    if (value === undefined || !['olm.gvk', 'olm.package', 'olm.label', 'olm.constraint'].includes(type)) {
      errs.push(`couldn't parse dependency of type ${type}`);
      continue;
    }
    if (type === 'olm.gvk') {
      if (s(value.group) === '') errs.push('API Group is empty');
      if (s(value.version) === '') errs.push('API Version is empty');
      if (s(value.kind) === '') errs.push('API Kind is empty');
    } else if (type === 'olm.package') {
      if (s(value.packageName) === '') errs.push('Package name is empty');
      if (s(value.version) === '') errs.push('Package version is empty');
      else if (!isValidRange(s(value.version))) errs.push('Invalid semver format version');
    } else if (type === 'olm.label') {
      if (s(value.label) === '') errs.push('Label information is missing');
    } else {
      const cel = isRecord(value.cel) ? value.cel : undefined;
      if (cel === undefined) errs.push('The CEL field is missing');
      else if (s(cel.rule) === '') errs.push('The CEL expression is missing');
    }
  }
  return errs;
}

/**
 * opm's `ValidateBundleFormat` (operator-registry v1.73 `pkg/lib/bundle/validate.go`): the bundle directory
 * layout, the annotations file and the dependencies file. Returns every error message (empty when valid).
 *
 * Upstream quirks kept: the manifests and metadata annotation values are never compared with the layout, and
 * the annotation checks run in Go map order — here in a fixed order (media type, manifests, metadata, package,
 * channels, default channel).
 */
export function validateBundleFormat(dir: string): string[] {
  const errs: string[] = [];
  const top = entries(dir);
  try {
    statSync(dir);
  } catch {
    errs.push(`open ${dir}: no such file or directory`);
  }
  const hasManifests = top.some((e) => e.isDir && e.name === 'manifests');
  const hasMetadata = top.some((e) => e.isDir && e.name === 'metadata');
  if (!hasManifests) errs.push('Unable to locate manifests directory');
  if (!hasMetadata) errs.push('Unable to locate metadata directory');
  if (errs.length > 0) return errs;

  const manifestsDir = goJoin(dir, 'manifests/');
  const metadataDir = goJoin(dir, 'metadata/');
  const media = bundleMediaType(manifestsDir);
  let mediaType = '';
  if ('error' in media) errs.push(media.error);
  else mediaType = media.mediaType;

  let annotations: Record<string, unknown> | undefined;
  let dependencies: unknown[] | undefined;
  // opm's own lookup: the first file of metadata/ that holds annotations, whatever its name; it differs from
  // the loader's and operator-sdk's, so it reads the files itself (with the one annotations decoder).
  const metadata = new BundleDirectory(metadataDir);
  for (const file of entries(metadataDir)) {
    const path = join(metadataDir, file.name);
    const doc = file.isDir ? undefined : firstDocument(path);
    const read =
      annotations === undefined && !file.isDir ? metadata.readAnnotations(path, dirname(path)) : undefined;
    if (read?.ok && read.annotations !== undefined) {
      annotations = read.annotations;
      continue;
    }
    const listed = isRecord(doc) ? decodeGo(doc, DEPENDENCIES_FILE) : undefined;
    const found =
      listed?.error === undefined ? (listed?.value as { dependencies?: unknown[] } | undefined) : undefined;
    if (dependencies === undefined && found?.dependencies !== undefined && found.dependencies.length > 0) {
      dependencies = found.dependencies;
    }
  }
  if (annotations === undefined) {
    errs.push('Could not find annotations file');
  } else {
    const checks: [string, string][] = [
      [BundleAnnotation.mediaType, mediaType],
      [BundleAnnotation.manifests, 'manifests/'],
      [BundleAnnotation.metadata, 'metadata/'],
      [BundleAnnotation.packageName, ''],
      [BundleAnnotation.channels, ''],
      [BundleAnnotation.defaultChannel, ''],
    ];
    for (const [label, expected] of checks) {
      const present = label in annotations;
      const value = typeof annotations[label] === 'string' ? (annotations[label] as string) : '';
      if (!present && label !== BundleAnnotation.defaultChannel)
        errs.push(`Missing annotation ${goQuote(label)}`);
      if (label === BundleAnnotation.mediaType && expected !== value) {
        errs.push(
          `Expecting annotation ${goQuote(label)} to have value ${goQuote(expected)} instead of ${goQuote(value)}`,
        );
      }
      if (label === BundleAnnotation.channels && value === '') {
        errs.push(`Expecting annotation ${goQuote(label)} to have non-empty value`);
      }
      if (label === BundleAnnotation.defaultChannel && present && value === '') {
        errs.push(`Expecting annotation ${goQuote(label)} to have non-empty value`);
      }
    }
  }
  if (dependencies !== undefined) errs.push(...dependencyErrors(dependencies));
  return errs;
}

/** How operator-sdk reports a format failure: one message for all of them. */
export function formatValidationMessage(dir: string, errors: readonly string[]): string {
  return `error validating format in ${dir}: Bundle validation errors: ${errors.join(',')}`;
}
