import type { GroupVersionKind } from '@opkit/controller-runtime/client';
import { goQuote } from '../go-compat/go-format.js';
import { goJsonMarshal } from '../go-compat/go-json.js';
import type { ClusterServiceVersion } from '../manifest/cluster-service-version.js';
import { formatGvk, isRecord, type Manifest } from '../manifest/manifest.js';
import { tryParseVersion, tryParseVersionTolerant } from '../semver/index.js';
import { bytePrefix, goJsonSyntaxErrorOffset } from './json-syntax.js';
import { isDns1123Subdomain, isLabelValue } from './k8s-names.js';
import {
  errFailedValidation,
  errFieldMissing,
  errInvalidCsv,
  errInvalidOperation,
  errInvalidParse,
  type ManifestResult,
  type ValidationError,
  warnInvalidCsv,
  warnInvalidOperation,
  warnPropertiesAnnotationUsed,
} from './result.js';

/** Warning text when `spec.minKubeVersion` is empty (shared with the OperatorHub validator). */
export const MIN_KUBE_VERSION_WARNING =
  'csv.Spec.minKubeVersion is not informed. It is recommended you provide this information. Otherwise, it would mean that your operator project can be distributed and installed in any cluster version available, which is not necessarily the case for all projects.';

/** Annotation keys OLM reads case-sensitively (lower-cased key → correct spelling). */
const CASE_SENSITIVE_ANNOTATIONS = new Map(
  [
    'olm.operatorGroup',
    'olm.operatorNamespace',
    'olm.targetNamespaces',
    'olm.providedAPIs',
    'olm.skipRange',
  ].map((k) => [k.toLowerCase(), k] as const),
);

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const rec = (v: unknown): Record<string, unknown> => (isRecord(v) ? v : {});

/** `metadata.name`-style check: DNS-1123 subdomain and label value; `undefined` when valid. */
export function csvNameProblem(name: string): string | undefined {
  const errs = [...isDns1123Subdomain(name), ...isLabelValue(name)];
  return errs.length > 0 ? `${goQuote(name)} is invalid: ${errs.join(',')}` : undefined;
}

/**
 * Upstream `ValidateAnnotationNames`: wrong-case spellings of OLM's case-sensitive annotation keys (Error)
 * and the `olm.properties` annotation (Warning).
 */
export function validateAnnotationNames(
  annotations: Record<string, string> | undefined,
  value: string,
): ValidationError[] {
  const errs: ValidationError[] = [];
  for (const key of Object.keys(annotations ?? {})) {
    const known = CASE_SENSITIVE_ANNOTATIONS.get(key.toLowerCase());
    if (known !== undefined && key !== known) {
      errs.push(
        errFailedValidation(
          `provided annotation ${key} uses wrong case and should be ${known} instead`,
          value,
        ),
      );
    }
    if (key === 'olm.properties') {
      errs.push(
        warnPropertiesAnnotationUsed(
          `found ${key} annotation, please define these properties in metadata/properties.yaml instead`,
        ),
      );
    }
  }
  return errs;
}

function gvkKey(gvk: GroupVersionKind): string {
  return formatGvk(gvk);
}

/** Decodes `alm-examples` as the Go validator does, or returns the finding that stops it. */
function decodeExamples(examples: string): GroupVersionKind[] | ValidationError {
  if (examples.length === 0) return [];
  const offset = goJsonSyntaxErrorOffset(examples);
  if (offset !== undefined) {
    return errInvalidParse(
      'invalid example',
      `invalid character at ${offset}\n ${bytePrefix(examples, offset)}<--(see the invalid character)`,
    );
  }
  const parsed: unknown = JSON.parse(examples);
  if (parsed === null) return [];
  // Go's YAML-or-JSON decoder only takes the JSON path for a leading `{`; arrays go through YAML, whose
  // errors are wrapped and show the element re-encoded as compact JSON.
  const viaYaml = !examples.trimStart().startsWith('{');
  const wrap = (message: string) =>
    viaYaml ? `error unmarshaling JSON: while decoding JSON: ${message}` : message;
  if (!Array.isArray(parsed)) {
    const type = typeof parsed === 'object' ? 'object' : typeof parsed === 'boolean' ? 'bool' : typeof parsed;
    return errInvalidParse(
      'error decoding example CustomResource',
      wrap(`json: cannot unmarshal ${type} into Go value of type []unstructured.Unstructured`),
    );
  }
  const gvks: GroupVersionKind[] = [];
  for (const item of parsed) {
    const kind = isRecord(item) ? str(item.kind) : '';
    if (kind === '') {
      return errInvalidParse(
        'error decoding example CustomResource',
        wrap(`Object 'Kind' is missing in '${goJsonMarshal(item)}'`),
      );
    }
    if (!isRecord(item)) continue;
    const apiVersion = str(item.apiVersion);
    const slash = apiVersion.indexOf('/');
    gvks.push({
      group: slash < 0 ? '' : apiVersion.slice(0, slash),
      version: slash < 0 ? apiVersion : apiVersion.slice(slash + 1),
      kind,
    });
  }
  return gvks;
}

function validateExamplesAnnotations(csv: Manifest, csvName: string): ValidationError[] {
  const annotations = csv.metadata.annotations ?? {};
  if (Object.keys(annotations).length === 0) return [warnInvalidCsv('annotations not found', csvName)];
  const errs: ValidationError[] = [];
  const alm = annotations['alm-examples'];
  const olm = annotations['olm.examples'];
  if (alm === undefined && olm === undefined)
    return [warnInvalidCsv('example annotations not found', csvName)];
  if (alm !== undefined && olm !== undefined) {
    errs.push(
      warnInvalidCsv(
        'both `alm-examples` and `olm.examples` are present. Checking only `alm-examples`',
        csvName,
      ),
    );
  }
  const decoded = decodeExamples(alm ?? olm ?? '');
  if (!Array.isArray(decoded)) return [...errs, decoded];
  const examples = new Map(decoded.map((g) => [gvkKey(g), g]));
  const provided = new Map<string, GroupVersionKind>();
  const spec = rec(csv.spec);
  for (const owned of arr(rec(spec.customresourcedefinitions).owned)) {
    const name = str(rec(owned).name);
    const dot = name.indexOf('.');
    if (dot < 0) {
      errs.push(errInvalidParse(`couldn't parse plural.group from crd name: ${name}`));
      continue;
    }
    const gvk = { group: name.slice(dot + 1), version: str(rec(owned).version), kind: str(rec(owned).kind) };
    provided.set(gvkKey(gvk), gvk);
  }
  for (const api of arr(rec(spec.apiservicedefinitions).owned)) {
    const gvk = { group: str(rec(api).group), version: str(rec(api).version), kind: str(rec(api).kind) };
    provided.set(gvkKey(gvk), gvk);
  }
  for (const [key, gvk] of examples) {
    if (!provided.has(key))
      errs.push(errInvalidOperation('example must have a provided API', formatGvk(gvk)));
  }
  for (const [key, gvk] of provided) {
    if (!examples.has(key))
      errs.push(warnInvalidOperation('provided API should have an example annotation', formatGvk(gvk)));
  }
  return errs;
}

function validateInstallModes(csv: Manifest, csvName: string): ValidationError[] {
  const spec = rec(csv.spec);
  const modes = arr(spec.installModes).map(rec);
  if (modes.length === 0) return [errInvalidCsv('install modes not found', csvName)];
  const errs: ValidationError[] = [];
  // Upstream never fills its seen-set, so duplicates are never reported (kept as is).
  const anySupported = modes.some((m) => m.supported === true);
  const hasConversionCrds = arr(spec.webhookdefinitions).some((w) => arr(rec(w).conversionCRDs).length > 0);
  if (hasConversionCrds) {
    for (const w of arr(spec.webhookdefinitions)) {
      if (arr(rec(w).conversionCRDs).length === 0) continue;
      const onlyAll = modes.every((m) =>
        m.type === 'AllNamespaces' ? m.supported === true : m.supported !== true,
      );
      if (!onlyAll)
        errs.push(
          errInvalidCsv(
            'only AllNamespaces InstallModeType is supported when conversionCRDs is present',
            csvName,
          ),
        );
    }
  }
  if (!anySupported) errs.push(errInvalidCsv('none of InstallModeTypes are supported', csvName));
  return errs;
}

/** `spec.minKubeVersion` checks shared by the CSV and OperatorHub validators; `undefined` when fine. */
export function minKubeVersionProblem(
  minKubeVersion: string,
): { level: 'Error' | 'Warning'; message: string } | undefined {
  if (minKubeVersion.trim().length === 0) return { level: 'Warning', message: MIN_KUBE_VERSION_WARNING };
  if (tryParseVersion(minKubeVersion) === undefined) {
    return { level: 'Error', message: `csv.Spec.MinKubeVersion has an invalid value: ${minKubeVersion}` };
  }
  return undefined;
}

/** Go zero-value test of a decoded JSON value in a field of the given Go kind. */
function isZero(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === 'string') return value.length === 0;
  if (typeof value === 'number') return value === 0;
  if (typeof value === 'boolean') return !value;
  return false;
}

/** Zero test of `spec.install` (a Go struct). */
function installIsZero(install: unknown): boolean {
  if (!isRecord(install)) return true;
  return isZero(install.strategy) && strategySpecIsZero(install.spec);
}

function strategySpecIsZero(spec: unknown): boolean {
  if (!isRecord(spec)) return true;
  return ['deployments', 'permissions', 'clusterPermissions'].every(
    (k) => spec[k] === undefined || spec[k] === null,
  );
}

function versionIsZero(version: unknown): boolean {
  if (typeof version !== 'string' || version === '') return true;
  const v = tryParseVersionTolerant(version);
  return (
    v !== undefined &&
    v.major === 0n &&
    v.minor === 0n &&
    v.patch === 0n &&
    v.pre.length === 0 &&
    v.build.length === 0
  );
}

function specIsZero(spec: unknown): boolean {
  if (!isRecord(spec)) return true;
  const structFields: Record<string, (v: unknown) => boolean> = {
    install: installIsZero,
    version: versionIsZero,
    release: isZero,
    customresourcedefinitions: (v) => !isRecord(v) || (isZero(v.owned) && isZero(v.required)),
    apiservicedefinitions: (v) => !isRecord(v) || (isZero(v.owned) && isZero(v.required)),
    provider: (v) => !isRecord(v) || (isZero(v.name) && isZero(v.url)),
    cleanup: (v) => !isRecord(v) || isZero(v.enabled),
  };
  const plainFields = [
    'maturity',
    'webhookdefinitions',
    'nativeAPIs',
    'minKubeVersion',
    'displayName',
    'description',
    'keywords',
    'maintainers',
    'links',
    'icon',
    'installModes',
    'replaces',
    'labels',
    'annotations',
    'selector',
    'skips',
    'relatedImages',
  ];
  return (
    Object.entries(structFields).every(([k, zero]) => zero(spec[k])) &&
    plainFields.every((k) => isZero(spec[k]))
  );
}

/** Upstream `checkEmptyFields` over the CSV struct: required (non-omitempty) fields that are zero. */
function checkFields(csv: Manifest): ValidationError[] {
  const errs: ValidationError[] = [];
  const missing = (field: string, kind: 'field' | 'struct') =>
    errs.push(errFieldMissing('required field missing', field, kind));
  if (isZero(csv.apiVersion) && isZero(csv.kind)) missing('TypeMeta', 'struct');
  const meta = isRecord(csv.metadata) ? csv.metadata : {};
  if (Object.values(meta).every((v) => isZero(v))) missing('ObjectMeta', 'struct');
  const spec = csv.spec;
  if (specIsZero(spec)) {
    missing('Spec', 'struct');
    return errs;
  }
  const s = rec(spec);
  if (installIsZero(s.install)) {
    missing('Spec.InstallStrategy', 'struct');
  } else {
    const install = rec(s.install);
    if (isZero(install.strategy)) missing('Spec.InstallStrategy.StrategyName', 'field');
    if (!strategySpecIsZero(install.spec)) {
      const deployments = rec(install.spec).deployments;
      if (deployments === undefined || deployments === null)
        missing('Spec.InstallStrategy.StrategySpec.DeploymentSpecs', 'field');
    }
  }
  if (isZero(s.displayName)) missing('Spec.DisplayName', 'field');
  return errs;
}

function validateVersionKind(csv: Manifest, csvName: string): ValidationError[] {
  const errs: ValidationError[] = [];
  const apiVersion = str(csv.apiVersion);
  const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
  if (version === '') errs.push(errInvalidCsv("'apiVersion' is missing", csvName));
  if (str(csv.kind) === '') errs.push(errInvalidCsv("'kind' is missing", csvName));
  return errs;
}

/**
 * The ClusterServiceVersion validator of operator-framework/api (`internal/csv.go`). The result is named after
 * the CSV.
 */
export function validateCsv(csv: ClusterServiceVersion | Manifest): ManifestResult {
  const name = str(csv.metadata?.name);
  const errors: ValidationError[] = [];
  const nameProblem = csvNameProblem(name);
  if (nameProblem !== undefined) errors.push(errInvalidCsv(`metadata.name ${nameProblem}`, name));
  const spec = rec(csv.spec);
  const replaces = str(spec.replaces);
  if (replaces !== '') {
    const problem = csvNameProblem(replaces);
    if (problem !== undefined) errors.push(errInvalidCsv(`spec.replaces ${problem}`, name));
  }
  errors.push(...validateExamplesAnnotations(csv, name));
  errors.push(...validateInstallModes(csv, name));
  const kube = minKubeVersionProblem(str(spec.minKubeVersion));
  if (kube !== undefined) {
    errors.push(
      kube.level === 'Warning' ? warnInvalidCsv(kube.message, name) : errInvalidCsv(kube.message, name),
    );
  }
  errors.push(...checkFields(csv));
  errors.push(...validateAnnotationNames(csv.metadata?.annotations, name));
  errors.push(...validateVersionKind(csv, name));
  return { name, errors };
}
