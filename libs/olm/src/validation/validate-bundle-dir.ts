import { readdirSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { BundleAnnotation, REGISTRY_V1 } from '../bundle/annotations.js';
import { readAnnotationsFile } from '../bundle/annotations-file.js';
import { BundleDirectory } from '../bundle/bundle-directory.js';
import { BundleFileRefusedError } from '../bundle/bundle-file.js';
import { isSupportedKind } from '../bundle/supported-kinds.js';
import { goFormatUnstructured, sortInByteOrder } from '../go-compat/go-format.js';
import { formatGvk, gvkOf } from '../manifest/manifest.js';
import { loadApiBundle } from './api-loader.js';
import { validateBundle } from './bundle.js';
import { bundleMediaType, goJoin, validateBundleFormat } from './bundle-format.js';
import type { OptionalValues, ValidationBundle } from './bundle-model.js';
import { validateCrds } from './crd.js';
import { validateCsv } from './csv.js';
import { aggregateFieldErrors } from './field-error.js';
import { goErrorText } from './go-errors.js';
import { type ImageInspector, multiArchImages } from './multiarch.js';
import { validateObjectMeta } from './object-meta.js';
import { MULTIARCH_VALIDATOR, selectOptionalValidators } from './optional-validators.js';
import {
  errFailedValidation,
  errInvalidBundle,
  type ManifestResult,
  type ValidationError,
} from './result.js';

/** Options of {@link validateBundleDir}, mirroring `operator-sdk bundle validate`'s flags. */
export interface BundleValidationOptions {
  /** `--select-optional`: a label selector such as `suite=operatorframework` or `name=good-practices`. */
  readonly selectOptional?: string;
  /** `--optional-values`, e.g. `{ 'k8s-version': '1.30' }`. */
  readonly optionalValues?: OptionalValues;
  /**
   * The platforms of the CSV's images, for `multiarch` (see {@link validateBundleDirReadingImages}, which
   * reads them). Without it every image counts as one that could not be inspected.
   */
  readonly images?: ImageInspector;
}

/** How images are read for {@link validateBundleDirReadingImages}: given the images, their inspections. */
export type ReadImages = (images: readonly string[]) => Promise<ImageInspector>;

/** Images that were not read, as `multiarch` sees them when no reader is given. */
const IMAGES_NOT_READ: ImageInspector = () => ({ error: 'images are not read by this caller' });

/** The outcome of validating a bundle directory. */
export interface BundleValidationReport {
  /** The directory relative to the working directory, as operator-sdk prints it in messages. */
  readonly dir: string;
  /** False when there is any Error, a format error or a fatal problem. */
  readonly passed: boolean;
  /** Why operator-sdk would stop before validating (no metadata, no manifests, an unloadable bundle). */
  readonly fatal?: string;
  /** opm `ValidateBundleFormat` messages. */
  readonly formatErrors: readonly string[];
  /** Validator results in operator-sdk's order: bundle, CSV, CRDs, then the optional validators. */
  readonly results: readonly ManifestResult[];
}

/**
 * operator-sdk's `FindBundleMetadata`: the annotations of `metadata/annotations.yaml`, or of any file. Read here
 * and not through the loader, which requires that one file and its keys: the validator checks what is on disk,
 * finding annotations where operator-sdk finds them.
 */
function findBundleMetadata(dir: string): { annotations: Record<string, string> } | { fatal: string } {
  const bundle = new BundleDirectory(dir);
  const read = (path: string): Record<string, string> | undefined => {
    let bytes: Uint8Array;
    try {
      bytes = bundle.read(path);
    } catch (error) {
      // Skipped when missing, as operator-sdk does; too large to read is said, not taken for missing.
      if (error instanceof BundleFileRefusedError) throw error;
      return undefined;
    }
    const file = readAnnotationsFile(bytes);
    const annotations = file.ok ? file.annotations : undefined;
    return annotations !== undefined && Object.keys(annotations).length > 0 ? { ...annotations } : undefined;
  };
  const preferred = read(goJoin(dir, 'metadata', 'annotations.yaml'));
  if (preferred !== undefined) return { annotations: preferred };
  const walk = (path: string): Record<string, string> | undefined => {
    // Links are followed only while they stay in the bundle: one to `/` would walk the host's files.
    const kind = bundle.entryKind(path);
    if (kind === 'missing') return undefined;
    if (kind === 'file') return read(path);
    for (const name of sortInByteOrder(readdirSync(path))) {
      const found = walk(goJoin(path, name));
      if (found !== undefined) return found;
    }
    return undefined;
  };
  const found = walk(dir);
  return found === undefined ? { fatal: `metadata not found in ${dir}` } : { annotations: found };
}

/** `appendResult`: merge into the result of the same name, or add it. */
function appendResult(results: ManifestResult[], extra: ManifestResult): ManifestResult[] {
  const target = results.find((r) => r.name === extra.name);
  if (target === undefined) return [...results, extra];
  target.errors.push(...extra.errors);
  return results;
}

/**
 * operator-sdk's content validation (`internal/registry/validate.go`): the kind and object metadata of every
 * manifest besides the CSV and CRDs, the bundle validator, the CSV validator and the CRD validator.
 */
export function validateBundleContent(
  bundle: ValidationBundle,
  mediaType: string = REGISTRY_V1,
): ManifestResult[] {
  const own: ManifestResult = { name: bundle.name, errors: [] as ValidationError[] };
  for (const obj of bundle.objects) {
    if (obj.kind === 'ClusterServiceVersion' || obj.kind === 'CustomResourceDefinition') continue;
    if (mediaType === REGISTRY_V1 && !isSupportedKind(obj.kind)) {
      own.errors.push(
        errInvalidBundle(`unsupported media type ${mediaType} for bundle object`, formatGvk(gvkOf(obj))),
      );
      continue;
    }
    const metaErrors = validateObjectMeta(obj.metadata, { requiresNamespace: false });
    if (metaErrors.length > 0) {
      own.errors.push(
        errFailedValidation(
          `error validating object: ${aggregateFieldErrors(metaErrors)}. ${goFormatUnstructured(obj)}`,
          obj.metadata.name ?? '',
        ),
      );
    }
  }
  let results: ManifestResult[] = [validateBundle(bundle)];
  if (bundle.csv !== undefined) results.push(validateCsv(bundle.csv));
  else own.errors.push(errInvalidBundle('no ClusterServiceVersion in bundle', bundle.name));
  const crds = [
    ...bundle.objects.filter(
      (o) => o.kind === 'CustomResourceDefinition' && o.apiVersion === 'apiextensions.k8s.io/v1beta1',
    ),
    ...bundle.objects.filter(
      (o) => o.kind === 'CustomResourceDefinition' && o.apiVersion === 'apiextensions.k8s.io/v1',
    ),
  ];
  if (crds.length > 0) results.push(...validateCrds(crds));
  results = appendResult(results, own);
  return results;
}

/** Runs the optional validators a selector picks on an in-memory bundle. */
export function runOptionalValidators(
  bundle: ValidationBundle,
  selector: string,
  values: OptionalValues = {},
  images: ImageInspector = IMAGES_NOT_READ,
): ManifestResult[] {
  return selectOptionalValidators(selector).flatMap((v) => v.validate(bundle, values, images));
}

/**
 * `operator-sdk bundle validate <dir>` (v1.42 flow, on operator-framework/api v0.45 and operator-registry
 * v1.73 rules): find the metadata, load the manifests as operator-framework/api does (stopping with `fatal`
 * where the SDK stops), opm's format check, the content validators and the selected optional validators.
 * Like the SDK, the bundle handed to the validators has no package or channels (they come from
 * `metadata/`, which the loader does not read).
 *
 * @throws {ValidatorSelectionError} when `selectOptional` matches no validator (`selector "…" does not match any validator labels`).
 */
export function validateBundleDir(
  bundleDir: string,
  options: BundleValidationOptions = {},
): BundleValidationReport {
  const loaded = loadForValidation(bundleDir, options);
  return 'report' in loaded ? loaded.report : finishValidation(loaded, options);
}

/**
 * {@link validateBundleDir}, reading the platforms of the CSV's images with `read` first when `multiarch` is
 * selected (each image once; nothing is read otherwise).
 *
 * @throws {ValidatorSelectionError} as {@link validateBundleDir}; what `read` throws.
 */
export async function validateBundleDirReadingImages(
  bundleDir: string,
  options: BundleValidationOptions,
  read: ReadImages,
): Promise<BundleValidationReport> {
  const loaded = loadForValidation(bundleDir, options);
  if ('report' in loaded) return loaded.report;
  const selector = options.selectOptional ?? '';
  const readsImages =
    selector !== '' && selectOptionalValidators(selector).some((v) => v.name === MULTIARCH_VALIDATOR);
  if (!readsImages || loaded.bundle.csv === undefined) return finishValidation(loaded, options);
  const images = await read(multiArchImages(loaded.bundle.csv));
  return finishValidation(loaded, { ...options, images });
}

/** A bundle directory loaded for validation, or the report of why it could not be. */
type LoadedForValidation =
  | { readonly report: BundleValidationReport }
  | { readonly dir: string; readonly bundle: ValidationBundle; readonly mediaType: string };

function loadForValidation(bundleDir: string, options: BundleValidationOptions): LoadedForValidation {
  // Like operator-sdk, work with (and print) the path relative to the working directory.
  const dir = relative(process.cwd(), resolve(bundleDir)) || '.';
  const optional = options.selectOptional ?? '';
  if (optional !== '') selectOptionalValidators(optional);
  const fail = (fatal: string): LoadedForValidation => ({
    report: { dir, passed: false, fatal, formatErrors: [], results: [] },
  });
  const metadata = findBundleMetadata(dir);
  if ('fatal' in metadata) return fail(metadata.fatal);
  const manifestsAnnotation = metadata.annotations[BundleAnnotation.manifests] ?? 'manifests/';
  // The annotation comes with the bundle: it names a directory of it, never one beside it (`../../..`). A
  // `manifests` that is itself a link (a user's own bundle) is followed, as opm does.
  const named = goJoin(manifestsAnnotation);
  if (named.startsWith('/') || named === '..' || named.startsWith('../')) {
    return fail(
      `${BundleAnnotation.manifests} ${JSON.stringify(manifestsAnnotation)} leads out of the bundle directory ${dir}`,
    );
  }
  const manifestsDir = goJoin(dir, manifestsAnnotation);
  const media = bundleMediaType(manifestsDir);
  if ('error' in media) return fail(media.error);
  const loaded = loadApiBundle(manifestsDir);
  if (loaded.error !== undefined || loaded.bundle === undefined)
    return fail(goErrorText(loaded.error ?? 'no bundle'));
  const api = loaded.bundle;
  const bundle: ValidationBundle = {
    name: api.name,
    packageName: '',
    channels: [''],
    defaultChannel: '',
    csv: api.csv,
    objects: api.objects,
    compressedSize: api.compressedSize,
    size: api.size,
  };
  return { dir, bundle, mediaType: media.mediaType };
}

/** opm's format check, the content validators and the selected optional validators on a loaded bundle. */
function finishValidation(
  loaded: { readonly dir: string; readonly bundle: ValidationBundle; readonly mediaType: string },
  options: BundleValidationOptions,
): BundleValidationReport {
  const { dir, bundle } = loaded;
  const optional = options.selectOptional ?? '';
  const formatErrors = validateBundleFormat(dir);
  const results = [...validateBundleContent(bundle, loaded.mediaType)];
  if (optional !== '')
    results.push(...runOptionalValidators(bundle, optional, options.optionalValues ?? {}, options.images));
  const passed =
    formatErrors.length === 0 && results.every((r) => r.errors.every((e) => e.level !== 'Error'));
  return { dir, passed, formatErrors, results };
}
