import { NONE } from '../../empty.js';
import { decodeGoBase64, isCanonicalBase64 } from '../../go-compat/go-base64.js';
import { goQuote } from '../../go-compat/go-format.js';
import {
  decodeGo,
  decodesToItself,
  type GoDecodeResult,
  type GoType,
} from '../../go-compat/go-json-decode.js';
import { YamlConversionError, yamlDocumentToJson } from '../../go-compat/yaml-json.js';
import { GO_PROPERTY_VALUES } from './go-schemas.js';
import { type BundleBlob, type BundleObjects, DECODED_OBJECTS, type Property } from './types.js';

/** Property types opm knows (alpha/property). */
export const PROPERTY_PACKAGE = 'olm.package';
export const PROPERTY_PACKAGE_REQUIRED = 'olm.package.required';
export const PROPERTY_GVK = 'olm.gvk';
export const PROPERTY_GVK_REQUIRED = 'olm.gvk.required';
export const PROPERTY_BUNDLE_OBJECT = 'olm.bundle.object';
export const PROPERTY_CSV_METADATA = 'olm.csv.metadata';
export const PROPERTY_CONSTRAINT = 'olm.constraint';
export const PROPERTY_CHANNEL = 'olm.channel';

/** Value of an `olm.package` property. */
export interface PackageProperty {
  packageName: string;
  version: string;
  release?: string;
}

/** Value of an `olm.gvk` or `olm.gvk.required` property. */
export interface GvkProperty {
  group: string;
  kind: string;
  version: string;
}

/** Value of an `olm.package.required` property. */
export interface PackageRequiredProperty {
  packageName: string;
  versionRange: string;
}

/** Value of an `olm.csv.metadata` property (the CSV fields catalogs carry instead of the whole CSV). */
export interface CsvMetadataProperty {
  annotations?: Record<string, string>;
  apiServiceDefinitions?: { owned?: unknown[]; required?: unknown[] };
  crdDescriptions?: { owned?: unknown[]; required?: unknown[] };
  description?: string;
  displayName?: string;
  installModes?: { type: string; supported: boolean }[];
  keywords?: string[];
  labels?: Record<string, string>;
  links?: { name: string; url: string }[];
  maintainers?: { name: string; email: string }[];
  maturity?: string;
  minKubeVersion?: string;
  nativeAPIs?: GvkProperty[];
  provider?: { name: string; url: string };
}

/** Properties grouped by type, as opm's `property.Parse` returns them. */
export interface ParsedProperties {
  readonly packages: readonly PackageProperty[];
  readonly packagesRequired: readonly PackageRequiredProperty[];
  readonly gvks: readonly GvkProperty[];
  readonly gvksRequired: readonly GvkProperty[];
  /** Base64 `data` of every `olm.bundle.object`. */
  readonly bundleObjects: readonly string[];
  readonly csvMetadatas: readonly CsvMetadataProperty[];
  readonly others: readonly Property[];
}

/** A property could not be decoded; `message` is opm's `parse property[%d] of type %q: %v`. */
export class PropertyParseError extends Error {
  constructor(
    readonly index: number,
    readonly type: string,
    reason: string,
  ) {
    super(`parse property[${index}] of type ${goQuote(type)}: ${reason}`);
    this.name = 'PropertyParseError';
  }
}

const END_OF_INPUT = 'unexpected end of JSON input';

/**
 * `value` with the fields of `defaults` it lacks, the fields of `defaults` first. A value that already has
 * exactly those fields in that order is returned as it is: most are, and they are kept for as long as the model.
 */
function withDefaults<T extends object>(value: unknown, defaults: Defaults<T>): T {
  if (hasExactly(value, defaults.keys)) return value as T;
  return { ...defaults.fields, ...(value as object) };
}

/** A struct's zero fields and their names, listed once rather than on every property. */
interface Defaults<T extends object> {
  readonly fields: Readonly<T>;
  readonly keys: readonly string[];
}

const defaultsOf = <T extends object>(fields: T): Defaults<T> => ({ fields, keys: Object.keys(fields) });
const PACKAGE_DEFAULTS = defaultsOf<PackageProperty>({ packageName: '', version: '' });
const PACKAGE_REQUIRED_DEFAULTS = defaultsOf<PackageRequiredProperty>({ packageName: '', versionRange: '' });
const GVK_DEFAULTS = defaultsOf<GvkProperty>({ group: '', kind: '', version: '' });

function hasExactly(value: unknown, keys: readonly string[]): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  let i = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key) || keys[i] !== key) return false;
    i++;
  }
  return i === keys.length;
}

/** The field names of Go structs whose fields are all strings, such as `property.Package` and `property.GVK`. */
const STRING_FIELDS = new WeakMap<GoType, readonly string[] | null>();

function stringFields(type: GoType): readonly string[] | null {
  let fields = STRING_FIELDS.get(type);
  if (fields === undefined) {
    fields =
      type.kind === 'struct' && Object.values(type.fields).every((f) => f.kind === 'string')
        ? Object.keys(type.fields)
        : null;
    STRING_FIELDS.set(type, fields);
  }
  return fields;
}

/**
 * {@link decodeGo} for a property value, without the decoder for a value of an all-string struct that spells
 * each of its keys exactly as a field and holds a string there (that decodes to a copy of itself, and
 * {@link parseProperties} fills in the missing fields, keys in any order), nor for any value that decodes to
 * itself ({@link decodesToItself}), such as the `olm.csv.metadata` of every bundle of a catalog opm wrote.
 */
export function decodePropertyValue(value: unknown, type: GoType): GoDecodeResult {
  const fields = stringFields(type);
  if (fields !== null && typeof value === 'object' && value !== null && !Array.isArray(value)) {
    let exact = true;
    for (const key in value) {
      if (!Object.hasOwn(value, key) || !fields.includes(key)) exact = false;
      else if (typeof (value as Record<string, unknown>)[key] !== 'string') exact = false;
      if (!exact) break;
    }
    if (exact) return { value };
  }
  return decodesToItself(value, type) ? { value } : decodeGo(value, type);
}

/**
 * Decodes properties by type exactly like opm's `property.Parse`, stopping at the first value that does not
 * decode into its Go type.
 *
 * @throws PropertyParseError
 */
export function parseProperties(properties: readonly Property[]): ParsedProperties {
  const out: { -readonly [K in keyof ParsedProperties]: ParsedProperties[K][number][] } = {
    packages: [],
    packagesRequired: [],
    gvks: [],
    gvksRequired: [],
    bundleObjects: [],
    csvMetadatas: [],
    others: [],
  };
  properties.forEach((p, i) => {
    if (p.value === undefined) throw new PropertyParseError(i, p.type, END_OF_INPUT);
    const goType = GO_PROPERTY_VALUES[p.type];
    if (goType === undefined) {
      out.others.push(p);
      return;
    }
    const { value, error } = decodePropertyValue(p.value, goType);
    if (error !== undefined) throw new PropertyParseError(i, p.type, error);
    switch (p.type) {
      case PROPERTY_PACKAGE:
        out.packages.push(withDefaults(value, PACKAGE_DEFAULTS));
        break;
      case PROPERTY_PACKAGE_REQUIRED:
        out.packagesRequired.push(withDefaults(value, PACKAGE_REQUIRED_DEFAULTS));
        break;
      case PROPERTY_GVK:
        out.gvks.push(withDefaults(value, GVK_DEFAULTS));
        break;
      case PROPERTY_GVK_REQUIRED:
        out.gvksRequired.push(withDefaults(value, GVK_DEFAULTS));
        break;
      case PROPERTY_BUNDLE_OBJECT:
        out.bundleObjects.push(((value ?? {}) as { data?: string }).data ?? '');
        break;
      case PROPERTY_CSV_METADATA:
        out.csvMetadatas.push((value ?? {}) as CsvMetadataProperty);
        break;
      default:
        out.others.push(p);
    }
  });
  const some = <T>(list: T[]): readonly T[] => (list.length === 0 ? NONE : list);
  return {
    packages: some(out.packages),
    packagesRequired: some(out.packagesRequired),
    gvks: some(out.gvks),
    gvksRequired: some(out.gvksRequired),
    bundleObjects: some(out.bundleObjects),
    csvMetadatas: some(out.csvMetadatas),
    others: some(out.others),
  };
}

/** The single `olm.package` property of a bundle, or `undefined` when there is none or more than one. */
export function packageProperty(bundle: Pick<BundleBlob, 'properties'>): PackageProperty | undefined {
  const found = bundle.properties.filter((p) => p.type === PROPERTY_PACKAGE);
  if (found.length !== 1) return undefined;
  const v = found[0]!.value;
  if (v === null || typeof v !== 'object') return undefined;
  const { packageName, version, release } = v as Record<string, unknown>;
  if (typeof packageName !== 'string' || typeof version !== 'string') return undefined;
  return typeof release === 'string' && release !== ''
    ? { packageName, version, release }
    : { packageName, version };
}

/** The version string of a bundle's `olm.package` property, if it has exactly one. */
export function bundleVersion(bundle: Pick<BundleBlob, 'properties'>): string | undefined {
  return packageProperty(bundle)?.version;
}

/** An `olm.bundle.object` property could not be read; `message` is opm's text (without `read bundle objects: `). */
export class BundleObjectError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BundleObjectError';
  }
}

const NO_OBJECTS: BundleObjects = Object.freeze({ objects: NONE, csvJson: '' });

/**
 * Decodes a bundle's `olm.bundle.object` properties like opm's `readBundleObjects`: base64 data, then YAML or
 * JSON to JSON; the CSV is the first object of kind `ClusterServiceVersion`. The result is kept on the blob
 * (its `DECODED_OBJECTS` field) for whoever reads them again (the registry, templates); loading only checks them
 * ({@link checkBundleObjects}), as validating and rendering never read them. Blobs are not changed after they are
 * loaded, so the result stays true.
 *
 * @throws BundleObjectError
 */
export function readBundleObjects(bundle: BundleBlob): BundleObjects {
  // Most bundles name an image and carry no objects: nothing to decode or keep.
  if (!bundle.properties.some((p) => p.type === PROPERTY_BUNDLE_OBJECT)) return NO_OBJECTS;
  const kept = bundle[DECODED_OBJECTS];
  if (kept !== undefined) return kept;
  const decoded = decodeBundleObjects(bundle);
  // A blob someone froze is decoded again on each call rather than refused.
  if (Object.isExtensible(bundle)) Object.defineProperty(bundle, DECODED_OBJECTS, { value: decoded });
  return decoded;
}

/** What is known of an object given as YAML once it is parsed: whether it is a CSV (and then the CSV). */
type YamlObject = { readonly csv?: Record<string, unknown> };

/**
 * Checks a bundle's `olm.bundle.object` properties as opm's `readBundleObjects` does on load, with its errors,
 * and keeps nothing: validating and rendering never read the manifests again, and a catalog carries megabytes of
 * them. Data that decodes to JSON is not decoded beyond its first characters (apimachinery passes it through
 * unchecked); data in YAML is converted, as that is where it can fail.
 *
 * @throws BundleObjectError
 */
export function checkBundleObjects(bundle: BundleBlob): void {
  const properties = bundle.properties;
  for (let i = 0; i < properties.length; i++) {
    const p = properties[i]!;
    if (p.type !== PROPERTY_BUNDLE_OBJECT) continue;
    const data = bundleObjectData(bundle, p, i);
    if (!isCanonicalBase64(data) || !startsAsJson(data)) decodeBundleObject(bundle, data, i);
  }
}

/** The base64 `data` of the bundle object property at `index`. @throws BundleObjectError */
function bundleObjectData(bundle: BundleBlob, p: Property, index: number): string {
  if (p.value === undefined) {
    throw new BundleObjectError(
      `${where(bundle)}: parse property at index ${index} as bundle object: ${END_OF_INPUT}`,
    );
  }
  const { value, error } = decodePropertyValue(p.value, GO_PROPERTY_VALUES[PROPERTY_BUNDLE_OBJECT]!);
  if (error !== undefined) {
    throw new BundleObjectError(
      `${where(bundle)}: parse property at index ${index} as bundle object: ${error}`,
    );
  }
  return ((value ?? {}) as { data?: string }).data ?? '';
}

const where = (bundle: BundleBlob): string =>
  `package ${goQuote(bundle.package)}, bundle ${goQuote(bundle.name)}`;

/** Base64 characters decoded to look for the JSON prefix: a whole number of quanta. */
const PREFIX_CHARS = 4096;

/**
 * Whether canonical base64 `data` decodes to text that {@link JSON_PREFIX} matches, from a prefix of it: the
 * whitespace the prefix may start with must end well before the prefix does (a character cut in two at its end
 * decodes to U+FFFD); otherwise `false`, and the caller decodes it all.
 */
function startsAsJson(data: string): boolean {
  if (data.length <= PREFIX_CHARS) return JSON_PREFIX.test(Buffer.from(data, 'base64').toString('utf8'));
  const head = Buffer.from(data.slice(0, PREFIX_CHARS), 'base64').toString('utf8');
  const first = head.search(NOT_SPACE);
  return first >= 0 && first < head.length - 4 && head.charCodeAt(first) === 0x7b;
}

const NOT_SPACE = /\S/;

/**
 * One object's text as JSON, and its tree when it was given as YAML and so parsed on the way.
 *
 * @throws BundleObjectError
 */
function decodeBundleObject(
  bundle: BundleBlob,
  data: string,
  index: number,
): { readonly json: string; readonly fromYaml: boolean; readonly parsed?: unknown } {
  const text = Buffer.from(decodeGoBase64(data)).toString('utf8');
  // apimachinery's ToJSON passes JSON-looking data through unchecked.
  if (JSON_PREFIX.test(text)) return { json: text, fromYaml: false };
  let parsed: unknown;
  try {
    parsed = yamlDocumentToJson(text);
  } catch (err) {
    const reason = err instanceof YamlConversionError ? err.message : String(err);
    throw new BundleObjectError(
      `${where(bundle)}: convert bundle object property at index ${index} to JSON: ${reason}`,
    );
  }
  return { json: JSON.stringify(parsed), fromYaml: true, parsed };
}

function decodeBundleObjects(bundle: BundleBlob): BundleObjects {
  const objects: string[] = [];
  // Objects given as YAML are parsed on the way to JSON (only a CSV's tree is kept); JSON text is parsed only
  // when the CSV is looked for.
  const fromYaml = new Map<number, YamlObject>();
  bundle.properties.forEach((p, i) => {
    if (p.type !== PROPERTY_BUNDLE_OBJECT) return;
    const { json, fromYaml: yaml, parsed } = decodeBundleObject(bundle, bundleObjectData(bundle, p, i), i);
    if (yaml) fromYaml.set(objects.length, isCsv(parsed) ? { csv: parsed } : {});
    objects.push(json);
  });
  let found: { readonly index?: number; readonly csv?: Record<string, unknown> } | undefined;
  const firstCsvOnce = () => {
    found ??= firstCsv(objects, fromYaml);
    return found;
  };
  return {
    objects,
    get csv() {
      return firstCsvOnce().csv;
    },
    get csvJson() {
      const { index } = firstCsvOnce();
      return index === undefined ? '' : (objects[index] ?? '');
    },
  };
}

const JSON_PREFIX = /^\s*\{/;

function isCsv(value: unknown): value is Record<string, unknown> {
  return (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    (value as Record<string, unknown>).kind === 'ClusterServiceVersion'
  );
}

/** opm's `extractCSV`: the first object that parses and has kind `ClusterServiceVersion`, with its index. */
function firstCsv(
  objects: readonly string[],
  fromYaml: ReadonlyMap<number, YamlObject>,
): { readonly index?: number; readonly csv?: Record<string, unknown> } {
  for (const [index, json] of objects.entries()) {
    const yaml = fromYaml.get(index);
    if (yaml !== undefined) {
      if (yaml.csv !== undefined) return { index, csv: yaml.csv };
      continue;
    }
    // Only an object whose text names the kind, plainly or with escapes, can be one: most CRDs are skipped
    // without parsing them.
    if (!json.includes('ClusterServiceVersion') && !json.includes('\\u')) continue;
    let value: unknown;
    try {
      value = JSON.parse(json);
    } catch {
      continue;
    }
    if (isCsv(value)) return { index, csv: value };
  }
  return {};
}
