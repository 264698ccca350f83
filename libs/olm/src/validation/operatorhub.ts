import { goQuote } from '../go-compat/go-format.js';
import { parseRequestUri } from '../go-compat/index.js';
import { isRecord } from '../manifest/manifest.js';
import { tryParseVersionTolerant } from '../semver/index.js';
import type { OptionalValues, ValidationBundle } from './bundle-model.js';
import { minKubeVersionProblem } from './csv.js';
import { deprecatedApiFindings, K8S_VERSION_KEY } from './deprecated-apis.js';
import {
  errFailedValidation,
  errInvalidBundle,
  errInvalidCsv,
  type ManifestResult,
  type ValidationError,
  warnDeprecatedValidator,
  warnFailedValidation,
  warnInvalidCsv,
} from './result.js';

/** Capability levels OperatorHub accepts. */
export const STANDARD_CAPABILITIES = [
  'Basic Install',
  'Seamless Upgrades',
  'Full Lifecycle',
  'Deep Insights',
  'Auto Pilot',
];

/** Categories OperatorHub accepts. */
export const STANDARD_CATEGORIES = [
  'AI/Machine Learning',
  'Application Runtime',
  'Big Data',
  'Cloud Provider',
  'Developer Tools',
  'Database',
  'Integration & Delivery',
  'Logging & Tracing',
  'Monitoring',
  'Modernization & Migration',
  'Networking',
  'OpenShift Optional',
  'Security',
  'Storage',
  'Streaming & Messaging',
  'Observability',
];

const ICON_MEDIATYPES = ['image/gif', 'image/jpeg', 'image/png', 'image/svg+xml'];

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const rec = (v: unknown): Record<string, unknown> => (isRecord(v) ? v : {});

interface Checks {
  errs: string[];
  warns: string[];
}

/** Go `mail.ParseAddress` for the common failures (no `@`, empty local part or domain). */
function mailProblem(email: string): string | undefined {
  const trimmed = email.trim();
  const angle = /<([^>]*)>\s*$/.exec(trimmed);
  const address = angle === null ? trimmed : angle[1]!;
  const at = address.lastIndexOf('@');
  if (at < 0) return "mail: missing '@' or angle-addr";
  if (at === 0) return 'mail: invalid string';
  if (at === address.length - 1) return 'mail: no domain in addr-spec';
  if (/\s/.test(address)) return 'mail: expected single address';
  return undefined;
}

function checkProvider(spec: Record<string, unknown>, checks: Checks): void {
  if (str(rec(spec.provider).name).trim() === '') checks.errs.push('csv.Spec.Provider.Name not specified');
}

function checkMaintainers(spec: Record<string, unknown>, checks: Checks): void {
  for (const raw of arr(spec.maintainers)) {
    const m = rec(raw);
    if (str(m.name) === '' || str(m.email) === '') {
      checks.errs.push('csv.Spec.Maintainers elements should contain both name and email');
    }
    if (str(m.email) !== '') {
      const problem = mailProblem(str(m.email));
      if (problem !== undefined)
        checks.errs.push(`csv.Spec.Maintainers email ${str(m.email)} is invalid: ${problem}`);
    }
  }
}

function checkLinks(spec: Record<string, unknown>, checks: Checks): void {
  for (const raw of arr(spec.links)) {
    const link = rec(raw);
    if (str(link.name) === '' || str(link.url) === '') {
      checks.errs.push('csv.Spec.Links elements should contain both name and url');
    }
    if (str(link.url) !== '') {
      const parsed = parseRequestUri(str(link.url));
      if (!parsed.ok) checks.errs.push(`csv.Spec.Links url ${str(link.url)} is invalid: ${parsed.error}`);
    }
  }
}

/** The capabilities check shared by the `operatorhub` and `capabilities` validators. */
function checkCapabilities(annotations: Record<string, string>, checks: Checks): void {
  const capability = annotations.capabilities;
  if (capability !== undefined && !STANDARD_CAPABILITIES.includes(capability)) {
    checks.errs.push(
      `csv.Metadata.Annotations.Capabilities ${goQuote(capability)} is not a valid capabilities level`,
    );
  }
}

/** The categories check shared by the `operatorhub` and `categories` validators. */
function checkCategories(
  annotations: Record<string, string>,
  checks: Checks,
  custom?: readonly string[],
): void {
  const categories = annotations.categories;
  if (categories === undefined) return;
  const allowed = custom ?? STANDARD_CATEGORIES;
  const set = custom === undefined ? 'standard' : 'custom';
  for (const category of categories.split(',')) {
    if (!allowed.includes(category.trim())) {
      checks.errs.push(
        `csv.Metadata.Annotations["categories"] value ${goQuote(category)} is not in the set of ${set} categories`,
      );
    }
  }
}

function checkVersion(spec: Record<string, unknown>, checks: Checks): void {
  const version = tryParseVersionTolerant(str(spec.version));
  const zero =
    version === undefined ||
    (version.major === 0n && version.minor === 0n && version.patch === 0n && version.pre.length === 0);
  if (zero) checks.errs.push('csv.Spec.Version must be set');
}

function checkIcon(spec: Record<string, unknown>, checks: Checks): void {
  if (spec.icon === undefined || spec.icon === null) {
    checks.warns.push('csv.Spec.Icon not specified');
    return;
  }
  const icons = arr(spec.icon);
  if (icons.length !== 1) checks.errs.push('csv.Spec.Icon should only have one element');
  if (icons.length === 0) return;
  const icon = rec(icons[0]);
  if (str(icon.mediatype) === '' || str(icon.base64data) === '') {
    checks.errs.push('csv.Spec.Icon elements should contain both data and mediatype');
  }
  if (str(icon.mediatype) !== '' && !ICON_MEDIATYPES.includes(str(icon.mediatype))) {
    checks.errs.push(`csv.Spec.Icon ${str(icon.mediatype)} does not have a valid mediatype`);
  }
}

function checkMinKubeVersion(spec: Record<string, unknown>, checks: Checks): void {
  const problem = minKubeVersionProblem(str(spec.minKubeVersion));
  if (problem === undefined) return;
  (problem.level === 'Error' ? checks.errs : checks.warns).push(problem.message);
}

function hubResult(
  bundle: ValidationBundle,
  optionalValues: OptionalValues,
  withAnnotations: boolean,
): ManifestResult {
  if (bundle.csv === undefined)
    return { name: bundle.name, errors: [errInvalidBundle('Bundle csv is nil', bundle.name)] };
  const spec = rec(bundle.csv.spec);
  const annotations = bundle.csv.metadata.annotations ?? {};
  const checks: Checks = { errs: [], warns: [] };
  checkProvider(spec, checks);
  checkMaintainers(spec, checks);
  checkLinks(spec, checks);
  if (withAnnotations) {
    checkCapabilities(annotations, checks);
    checkCategories(annotations, checks);
  }
  checkVersion(spec, checks);
  checkIcon(spec, checks);
  checkMinKubeVersion(spec, checks);
  const csvName = str(bundle.csv.metadata.name);
  const errors: ValidationError[] = [
    ...checks.errs.map((e) => errInvalidCsv(e, csvName)),
    ...checks.warns.map((w) => warnInvalidCsv(w, csvName)),
  ];
  const deprecated = deprecatedApiFindings(bundle, optionalValues[K8S_VERSION_KEY] ?? '');
  errors.push(...deprecated.errors.map((e) => errFailedValidation(e, csvName)));
  errors.push(...deprecated.warnings.map((w) => warnFailedValidation(w, csvName)));
  return { name: bundle.name, errors };
}

/** The `operatorhubv2` validator (OperatorHub.io metadata plus removed APIs). */
export function validateOperatorHubV2(
  bundle: ValidationBundle,
  optionalValues: OptionalValues = {},
): ManifestResult {
  return hubResult(bundle, optionalValues, false);
}

/**
 * The deprecated `operatorhub` validator: `operatorhubv2` plus capabilities and categories, and a separate
 * result carrying its deprecation warning.
 */
export function validateOperatorHub(
  bundle: ValidationBundle,
  optionalValues: OptionalValues = {},
): ManifestResult[] {
  return [
    hubResult(bundle, optionalValues, true),
    {
      name: '',
      errors: [
        warnDeprecatedValidator(
          'The "operatorhub" validator is deprecated; for equivalent validation use "operatorhub/v2", "standardcapabilities" and "standardcategories" validators',
        ),
      ],
    },
  ];
}

/** The `standardcapabilities` validator (only when the `capabilities` annotation exists). */
export function validateCapabilities(bundle: ValidationBundle): ManifestResult {
  const checks: Checks = { errs: [], warns: [] };
  checkCapabilities(bundle.csv?.metadata.annotations ?? {}, checks);
  const csvName = str(bundle.csv?.metadata.name);
  return { name: bundle.name, errors: checks.errs.map((e) => errInvalidCsv(e, csvName)) };
}

/**
 * The `standardcategories` validator. `customCategories` replaces the standard set (upstream reads it from the
 * JSON file named by `OPERATOR_BUNDLE_CATEGORIES`).
 */
export function validateCategories(
  bundle: ValidationBundle,
  customCategories?: readonly string[],
): ManifestResult {
  const checks: Checks = { errs: [], warns: [] };
  checkCategories(bundle.csv?.metadata.annotations ?? {}, checks, customCategories);
  const csvName = str(bundle.csv?.metadata.name);
  return { name: bundle.name, errors: checks.errs.map((e) => errInvalidCsv(e, csvName)) };
}
