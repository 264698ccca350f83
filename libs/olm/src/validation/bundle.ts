import type { GroupVersionKind } from '@opkit/controller-runtime/client';
import { goQuote } from '../go-compat/go-format.js';
import { formatGvk, isRecord } from '../manifest/manifest.js';
import { formatVersion, tryParseVersionTolerant, ZERO_VERSION } from '../semver/index.js';
import { type ValidationBundle, v1beta1Crds, v1Crds } from './bundle-model.js';
import { imageReferenceProblem } from './image-reference.js';
import {
  errInvalidBundle,
  type ManifestResult,
  type ValidationError,
  warnFailedValidation,
  warnInvalidBundle,
} from './result.js';

/** Largest gzip-compressed bundle OLM can stage in a ConfigMap (1 MiB). */
export const MAX_BUNDLE_SIZE = 1 << 20;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const rec = (v: unknown): Record<string, unknown> => (isRecord(v) ? v : {});

/** The CSV version as Go prints `csv.Spec.Version` (tolerantly parsed; `0.0.0` when unset). */
export function csvVersionString(version: unknown): string {
  return formatVersion(tryParseVersionTolerant(str(version)) ?? ZERO_VERSION);
}

/** Upstream `formatBytesInUnit`: 1000-based, one decimal. */
export function formatBytesInUnit(bytes: number): string {
  const unit = 1000;
  if (bytes < unit) return `${bytes} B`;
  let div = unit;
  let exp = 0;
  for (let n = Math.floor(bytes / unit); n >= unit; n = Math.floor(n / unit)) {
    div *= unit;
    exp++;
  }
  return `${(bytes / div).toFixed(1)} ${'kMGTPE'[exp]}B`;
}

/** GVKs of every version of every CRD file in the bundle. */
function bundleCrdKeys(bundle: ValidationBundle): GroupVersionKind[] {
  const keys: GroupVersionKind[] = [];
  for (const crd of v1Crds(bundle)) {
    const spec = rec(crd.spec);
    for (const v of arr(spec.versions)) {
      keys.push({ group: str(spec.group), version: str(rec(v).name), kind: str(rec(spec.names).kind) });
    }
  }
  for (const crd of v1beta1Crds(bundle)) {
    const spec = rec(crd.spec);
    const versions = arr(spec.versions);
    if (versions.length === 0) {
      keys.push({ group: str(spec.group), version: str(spec.version), kind: str(rec(spec.names).kind) });
    } else {
      for (const v of versions) {
        keys.push({ group: str(spec.group), version: str(rec(v).name), kind: str(rec(spec.names).kind) });
      }
    }
  }
  return keys;
}

function validateOwnedCrds(bundle: ValidationBundle): ValidationError[] {
  const errs: ValidationError[] = [];
  const csvSpec = rec(bundle.csv?.spec);
  const owned: GroupVersionKind[] = arr(rec(csvSpec.customresourcedefinitions).owned).map((o) => {
    const name = str(rec(o).name);
    const dot = name.indexOf('.');
    return {
      group: dot < 0 ? name : name.slice(dot + 1),
      version: str(rec(o).version),
      kind: str(rec(o).kind),
    };
  });
  const present = new Map<string, GroupVersionKind>();
  for (const key of bundleCrdKeys(bundle)) {
    const k = formatGvk(key);
    if (present.has(k)) {
      errs.push(errInvalidBundle(`duplicate CRD ${goQuote(k)} in bundle ${goQuote(bundle.name)}`, k));
    }
    present.set(k, key);
  }
  const ownedGroupKinds = new Set<string>();
  for (const key of owned) {
    const k = formatGvk(key);
    if (!present.has(k)) {
      errs.push(errInvalidBundle(`owned CRD ${goQuote(k)} not found in bundle ${goQuote(bundle.name)}`, k));
    } else {
      present.delete(k);
      ownedGroupKinds.add(`${key.group}/${key.kind}`);
    }
  }
  for (const [k, key] of present) {
    if (ownedGroupKinds.has(`${key.group}/${key.kind}`)) present.delete(k);
  }
  for (const k of present.keys()) {
    errs.push(
      errInvalidBundle(
        `CRD ${goQuote(k)} is present in bundle ${goQuote(bundle.name)} but not defined in CSV`,
        k,
      ),
    );
  }
  return errs;
}

function validateServiceAccounts(bundle: ValidationBundle): ValidationError[] {
  const install = rec(rec(bundle.csv?.spec).install);
  const saNames = new Set(
    arr(rec(install.spec).deployments).map((d) =>
      str(rec(rec(rec(rec(d).spec).template).spec).serviceAccountName),
    ),
  );
  const errs: ValidationError[] = [];
  for (const obj of bundle.objects) {
    if (obj.apiVersion !== 'v1' || obj.kind !== 'ServiceAccount') continue;
    const name = str(obj.metadata?.name);
    if (saNames.has(name)) {
      errs.push(
        errInvalidBundle(
          `invalid service account found in bundle. This service account ${name} in your bundle is not valid, because a service account with the same name was already specified in your CSV. If this was unintentional, please remove the service account manifest from your bundle. If it was intentional to specify a separate service account, please rename the SA in either the bundle manifest or the CSV.`,
          name,
        ),
      );
    }
  }
  return errs;
}

function validateBundleSize(bundle: ValidationBundle): ValidationError[] {
  if (bundle.compressedSize === 0)
    return [warnFailedValidation('unable to check the bundle compressed size', bundle.name)];
  if (bundle.size === 0) return [warnFailedValidation('unable to check the bundle size', bundle.name)];
  const sizes = `size=~${formatBytesInUnit(bundle.compressedSize)} , max=${formatBytesInUnit(MAX_BUNDLE_SIZE)}. Bundle uncompressed size is ${formatBytesInUnit(bundle.size)}`;
  if (bundle.compressedSize > MAX_BUNDLE_SIZE) {
    return [
      errInvalidBundle(`maximum bundle compressed size with gzip size exceeded: ${sizes}`, bundle.name),
    ];
  }
  if (bundle.compressedSize > MAX_BUNDLE_SIZE * 0.85) {
    return [warnInvalidBundle(`nearing maximum bundle compressed size with gzip: ${sizes}`, bundle.name)];
  }
  return [];
}

function validateBundleName(bundle: ValidationBundle): ValidationError[] {
  const spec = rec(bundle.csv?.spec);
  const release = spec.release === undefined || spec.release === null ? '' : String(spec.release);
  if (release === '') return [];
  const expected = `${bundle.packageName}-v${csvVersionString(spec.version)}-${release}`;
  if (bundle.name === expected) return [];
  return [
    errInvalidBundle(
      `bundle name with release versioning ${goQuote(bundle.name)} does not match expected name ${goQuote(expected)}`,
      bundle.name,
    ),
  ];
}

function validateRelatedImages(bundle: ValidationBundle): ValidationError[] {
  const errs: ValidationError[] = [];
  arr(rec(bundle.csv?.spec).relatedImages).forEach((raw, i) => {
    const image = str(rec(raw).image);
    const field = `spec.relatedImages[${i}].image`;
    if (image === '') {
      errs.push(errInvalidBundle(`relatedImages[${i}] has an empty image field`, field));
      return;
    }
    const problem = imageReferenceProblem(image);
    if (problem !== undefined) {
      errs.push(
        errInvalidBundle(
          `relatedImages[${i}] has an invalid image pullspec ${goQuote(image)}: ${problem}`,
          field,
        ),
      );
    }
  });
  return errs;
}

/**
 * The bundle validator of operator-framework/api (`internal/bundle.go`): owned CRDs against the CRD files,
 * service accounts, size, release naming and related images. The result is named after the CSV version.
 */
export function validateBundle(bundle: ValidationBundle): ManifestResult {
  if (bundle.csv === undefined) return { name: '', errors: [] };
  const errors = [
    ...validateOwnedCrds(bundle),
    ...validateServiceAccounts(bundle),
    ...validateBundleSize(bundle),
    ...validateBundleName(bundle),
    ...validateRelatedImages(bundle),
  ];
  return { name: csvVersionString(bundle.csv.spec.version), errors };
}
