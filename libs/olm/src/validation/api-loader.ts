import { statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { gzipSync } from 'node:zlib';
import { BundleDirectory } from '../bundle/bundle-directory.js';
import { BundleFileRefusedError } from '../bundle/bundle-file.js';
import { goJsonMarshal } from '../go-compat/go-json.js';
import type { ClusterServiceVersion } from '../manifest/cluster-service-version.js';
import { isRecord, type Manifest } from '../manifest/manifest.js';
import { parseVersionTolerant } from '../semver/index.js';
import { goJoin } from './bundle-format.js';
import { goErrorText as errorText, type GoError, newAggregate } from './go-errors.js';

/** A bundle as operator-framework/api's `GetBundleFromDir` loads it. */
export interface ApiBundle {
  readonly name: string;
  readonly csv: ClusterServiceVersion;
  readonly objects: Manifest[];
  readonly size: number;
  readonly compressedSize: number;
}

/** Decodes into an unstructured object as apimachinery does (a kind is required). */
function decodeUnstructured(bundle: BundleDirectory, path: string): { object: Manifest } | { error: string } {
  const decoded = bundle.firstDocument(path);
  if ('error' in decoded) return decoded;
  if ('refused' in decoded) return { error: decoded.refused };
  const value = decoded.value;
  if (!isRecord(value) || typeof value.kind !== 'string' || value.kind === '') {
    return { error: `Object 'Kind' is missing in '${goJsonMarshal(value)}'` };
  }
  const object = value as Manifest;
  if (!isRecord(object.metadata)) object.metadata = {};
  return { object };
}

/** Typed decoding problems of a CSV that make Go's `json.Unmarshal` fail. */
function csvDecodeError(csv: Manifest): string | undefined {
  const spec = isRecord(csv.spec) ? csv.spec : {};
  if (spec.version !== undefined && spec.version !== null) {
    if (typeof spec.version !== 'string') {
      return `error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${typeof spec.version} into Go value of type string`;
    }
    try {
      parseVersionTolerant(spec.version);
    } catch (error) {
      return `error unmarshaling JSON: while decoding JSON: ${(error as Error).message}`;
    }
  }
  if (spec.displayName !== undefined && spec.displayName !== null && typeof spec.displayName !== 'string') {
    return `error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${typeof spec.displayName === 'number' ? 'number' : 'object'} into Go struct field ClusterServiceVersionSpec.spec.displayName of type string`;
  }
  return undefined;
}

/** `loadBundle(csvName, dir)`: every file of the CSV's directory. */
function loadDir(
  bundle: BundleDirectory,
  csvName: string,
  dir: string,
): { bundle?: { name: string; csv?: ClusterServiceVersion; objects: Manifest[] }; error?: GoError } {
  const errs: GoError[] = [];
  const loaded: { name: string; csv?: ClusterServiceVersion; objects: Manifest[] } = {
    name: csvName,
    objects: [],
  };
  for (const entry of bundle.entries(dir)) {
    const path = goJoin(dir, entry.name);
    if (entry.isDir) {
      errs.push(`bundle manifests dir contains directory: ${path}`);
      continue;
    }
    if (entry.name.startsWith('.')) {
      errs.push(`bundle manifests dir has hidden file: ${path}`);
      continue;
    }
    const decoded = decodeUnstructured(bundle, path);
    if ('error' in decoded) {
      errs.push(`unable to decode object: ${decoded.error}`);
      continue;
    }
    const obj = decoded.object;
    loaded.objects.push(obj);
    if (obj.kind === 'ClusterServiceVersion') {
      if (loaded.csv !== undefined) return { error: 'invalid bundle: contains multiple CSVs' };
      const problem = csvDecodeError(obj);
      if (problem !== undefined) return { error: `unable to parse CSV ${entry.name}: ${problem}` };
      loaded.csv = obj as ClusterServiceVersion;
    } else if (obj.kind === 'CustomResourceDefinition') {
      if (obj.apiVersion !== 'apiextensions.k8s.io/v1beta1' && obj.apiVersion !== 'apiextensions.k8s.io/v1') {
        return { error: `unsupported CRD version ${obj.apiVersion} for ${entry.name}` };
      }
    }
  }
  const error = newAggregate(errs);
  return error === undefined ? { bundle: loaded } : { bundle: loaded, error };
}

/**
 * operator-framework/api `manifests.GetBundleFromDir(manifestsDir)` (bundleloader.go): walks the directory,
 * loads the directory of the first ClusterServiceVersion found, and sums the file sizes. Errors carry
 * upstream's exact texts; any error means operator-sdk stops.
 */
export function loadApiBundle(manifestsDir: string): { bundle?: ApiBundle; error?: GoError } {
  const bundle = new BundleDirectory(manifestsDir);
  const errs: (GoError | undefined)[] = [];
  const refused: GoError[] = [];
  let foundCsv = false;
  let loaded: { name: string; csv?: ClusterServiceVersion; objects: Manifest[] } | undefined;
  const walk = (path: string): void => {
    let isDir: boolean;
    try {
      isDir = statSync(path).isDirectory();
      // Below the directory, links are followed only while they stay in it: one to `/` would walk the host.
      if (path !== manifestsDir) isDir = bundle.entryKind(path) === 'dir';
    } catch (error) {
      if (error instanceof BundleFileRefusedError) {
        refused.push(error.message);
        return;
      }
      errs.push(
        `lstat ${path}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (error as Error).message}`,
      );
      return;
    }
    const name = basename(path);
    if (isDir) {
      if (name.startsWith('.') && path !== manifestsDir) return;
      for (const entry of bundle.entries(path)) walk(goJoin(path, entry.name));
      return;
    }
    if (name.startsWith('.')) return;
    const decoded = bundle.firstDocument(path, manifestsDir);
    if ('refused' in decoded) {
      refused.push(decoded.refused);
      return;
    }
    if ('error' in decoded || !isRecord(decoded.value) || decoded.value.kind !== 'ClusterServiceVersion')
      return;
    foundCsv = true;
    const csvName =
      isRecord(decoded.value.metadata) && typeof decoded.value.metadata.name === 'string'
        ? decoded.value.metadata.name
        : '';
    const result = loadDir(bundle, csvName, dirname(path));
    const walkErrs: GoError[] = [];
    if (result.error !== undefined)
      walkErrs.push(`error loading objs in directory: ${errorText(result.error)}`);
    if (result.bundle?.csv === undefined) {
      walkErrs.push('no bundle csv found');
      errs.push(newAggregate(walkErrs));
      return;
    }
    loaded = result.bundle;
    errs.push(newAggregate(walkErrs));
  };
  walk(manifestsDir);
  const refusal = newAggregate(refused);
  if (refusal !== undefined) return { error: refusal };

  let size = 0;
  let compressedSize = 0;
  if (loaded !== undefined) {
    const sum = (path: string): void => {
      if (path === manifestsDir || bundle.entryKind(path) === 'dir') {
        for (const entry of bundle.entries(path)) sum(goJoin(path, entry.name));
        return;
      }
      const data = bundle.read(path);
      size += data.length;
      compressedSize += gzipSync(data).toString('base64').length;
    };
    sum(manifestsDir);
  }
  if (!foundCsv) errs.push(`unable to find a csv in bundle directory ${manifestsDir}`);
  else if (loaded === undefined) errs.push(`unable to load bundle from directory ${manifestsDir}`);
  const error = newAggregate(errs);
  if (error !== undefined) return { error };
  return {
    bundle: { name: loaded!.name, csv: loaded!.csv!, objects: loaded!.objects, size, compressedSize },
  };
}
