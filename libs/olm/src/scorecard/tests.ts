// The built-in tests of operator-sdk scorecard's basic and OLM suites, run in-process on a bundle directory.
import { type LoadedBundle, loadBundle } from '../bundle/load.js';
import type { CrdDescription } from '../manifest/cluster-service-version.js';
import { formatValidationError } from '../validation/result.js';
import { validateBundleDir } from '../validation/validate-bundle-dir.js';

export type TestState = 'pass' | 'fail' | 'error';

/** One entry of a scorecard `TestStatus.results`. */
export interface TestResult {
  name: string;
  log?: string;
  state: TestState;
  errors?: string[];
  suggestions?: string[];
}

type JsonObject = Record<string, unknown>;

/** The built-in test names, as `entrypoint: [scorecard-test, <name>]` names them. */
export const BUILTIN_TESTS = [
  'basic-check-spec',
  'olm-bundle-validation',
  'olm-crds-have-validation',
  'olm-crds-have-resources',
  'olm-spec-descriptors',
  'olm-status-descriptors',
] as const;
export type BuiltinTest = (typeof BUILTIN_TESTS)[number];

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The CRs of the CSV's `alm-examples` annotation; a malformed annotation is an error of the test. */
function almExamples(bundle: LoadedBundle): JsonObject[] | string {
  const text = bundle.csv.metadata?.annotations?.['alm-examples'];
  if (text === undefined || text.trim() === '') return [];
  try {
    const parsed: unknown = JSON.parse(text);
    if (!Array.isArray(parsed)) return 'alm-examples annotation is not a JSON array';
    return parsed.filter(isObject);
  } catch (e) {
    return `alm-examples annotation is not valid JSON: ${(e as Error).message}`;
  }
}

function result(name: BuiltinTest, errors: string[], suggestions: string[] = [], log?: string): TestResult {
  return {
    name,
    ...(log === undefined ? {} : { log }),
    state: errors.length > 0 ? 'fail' : 'pass',
    ...(errors.length > 0 ? { errors } : {}),
    ...(suggestions.length > 0 ? { suggestions } : {}),
  };
}

const crName = (cr: JsonObject): string => {
  const meta = isObject(cr.metadata) ? cr.metadata : {};
  return typeof meta.name === 'string' ? meta.name : '<unnamed>';
};
const crGroup = (cr: JsonObject): string => String(cr.apiVersion ?? '').split('/')[0] ?? '';

const ownedCrds = (bundle: LoadedBundle): CrdDescription[] =>
  bundle.csv.spec?.customresourcedefinitions?.owned ?? [];

/** The owned CRD description a CR example belongs to (kind, the CRD name's group, and version). */
function ownedFor(bundle: LoadedBundle, cr: JsonObject): CrdDescription | undefined {
  const version = String(cr.apiVersion ?? '').split('/')[1];
  return ownedCrds(bundle).find(
    (o) =>
      o.kind === cr.kind && o.name.slice(o.name.indexOf('.') + 1) === crGroup(cr) && o.version === version,
  );
}

function basicCheckSpec(crs: JsonObject[]): TestResult {
  const errors = crs
    .filter((cr) => cr.spec === undefined || cr.spec === null)
    .map((cr) => `error spec does not exist for the custom resource ${crName(cr)}`);
  return result('basic-check-spec', errors);
}

function bundleValidation(dir: string): TestResult {
  const report = validateBundleDir(dir);
  const errors: string[] = [];
  const warnings: string[] = [];
  if (report.fatal !== undefined) errors.push(report.fatal);
  errors.push(...report.formatErrors);
  for (const r of report.results)
    for (const e of r.errors) (e.level === 'Error' ? errors : warnings).push(formatValidationError(e));
  return result('olm-bundle-validation', errors, [], warnings.length > 0 ? warnings.join('\n') : undefined);
}

function crdsHaveValidation(bundle: LoadedBundle, crs: JsonObject[]): TestResult {
  const errors: string[] = [];
  const owned = new Set(ownedCrds(bundle).map((o) => o.name));
  for (const m of bundle.manifests) {
    const crd = m.object as JsonObject;
    if (crd.kind !== 'CustomResourceDefinition') continue;
    const meta = isObject(crd.metadata) ? crd.metadata : {};
    const name = String(meta.name ?? '');
    if (!owned.has(name)) continue;
    const spec = isObject(crd.spec) ? crd.spec : {};
    const versions = Array.isArray(spec.versions) ? spec.versions.filter(isObject) : [];
    for (const v of versions) {
      const schema = isObject(v.schema) ? v.schema.openAPIV3Schema : undefined;
      if (!isObject(schema)) {
        errors.push(
          `CRD ${name} version ${String(v.name)} has no validation (spec.versions[].schema.openAPIV3Schema)`,
        );
        continue;
      }
      // Every spec field of an example CR of this version must be declared in the schema.
      const props =
        isObject(schema.properties) && isObject(schema.properties.spec) ? schema.properties.spec : {};
      const fields = isObject(props.properties) ? props.properties : {};
      const kind = isObject(spec.names) ? spec.names.kind : undefined;
      for (const cr of crs) {
        if (cr.kind !== kind || cr.apiVersion !== `${String(spec.group)}/${String(v.name)}`) continue;
        if (!isObject(cr.spec)) continue;
        if (props.properties === undefined) continue;
        for (const key of Object.keys(cr.spec))
          if (!(key in fields))
            errors.push(
              `CRD ${name} version ${String(v.name)} has no validation for spec field ${key} of custom resource ${crName(cr)}`,
            );
      }
    }
  }
  return result(
    'olm-crds-have-validation',
    errors,
    errors.length > 0
      ? ['Add an openAPIV3Schema for each version of every owned CRD, covering the spec fields']
      : [],
  );
}

function crdsHaveResources(bundle: LoadedBundle): TestResult {
  const missing = ownedCrds(bundle).filter((o) => (o.resources ?? []).length === 0);
  const errors = missing.length > 0 ? ['Owned CRDs do not have resources specified'] : [];
  const suggestions = missing.map(
    (o) =>
      `Add resources to spec.customresourcedefinitions.owned[] for ${o.name}, e.g. the Deployment it creates`,
  );
  return result('olm-crds-have-resources', errors, suggestions);
}

function descriptors(
  name: 'olm-spec-descriptors' | 'olm-status-descriptors',
  bundle: LoadedBundle,
  crs: JsonObject[],
): TestResult {
  const field = name === 'olm-spec-descriptors' ? 'spec' : 'status';
  const errors: string[] = [];
  const suggestions: string[] = [];
  for (const cr of crs) {
    const owned = ownedFor(bundle, cr);
    if (owned === undefined) {
      errors.push(`custom resource ${crName(cr)} of kind ${String(cr.kind)} is not an owned CRD of the CSV`);
      continue;
    }
    const value = cr[field];
    if (!isObject(value)) {
      if (field === 'spec') errors.push(`${owned.kind} does not have a spec`);
      continue;
    }
    const list = (field === 'spec' ? owned.specDescriptors : owned.statusDescriptors) ?? [];
    // A descriptor of a nested path (`port.containerPort`) describes its top-level field too.
    const tops = new Set(list.map((d) => d.path.split('.')[0]));
    for (const key of Object.keys(value)) {
      if (tops.has(key)) continue;
      errors.push(`${key} does not have a ${field} descriptor`);
      suggestions.push(`Add a ${field} descriptor for ${key} to ${owned.name} in the CSV`);
    }
  }
  return result(name, errors, suggestions);
}

/** Runs one built-in test on the bundle in `dir`. */
export function runBuiltinTest(test: BuiltinTest, dir: string): TestResult {
  if (test === 'olm-bundle-validation') return bundleValidation(dir);
  let bundle: LoadedBundle;
  try {
    bundle = loadBundle(dir);
  } catch (e) {
    return { name: test, state: 'error', errors: [(e as Error).message] };
  }
  const crs = almExamples(bundle);
  if (typeof crs === 'string') return { name: test, state: 'error', errors: [crs] };
  switch (test) {
    case 'basic-check-spec':
      return basicCheckSpec(crs);
    case 'olm-crds-have-validation':
      return crdsHaveValidation(bundle, crs);
    case 'olm-crds-have-resources':
      return crdsHaveResources(bundle);
    case 'olm-spec-descriptors':
    case 'olm-status-descriptors':
      return descriptors(test, bundle, crs);
  }
}
