import { csvMetadataOf } from '../catalog/declcfg/csv-metadata.js';
import { byteOrder } from '../go-compat/go-format.js';
import { goIndentJson, goJsonMarshal, RawJson, rawArrayMembers } from '../go-compat/go-json.js';
import { decodeGo } from '../go-compat/go-json-decode.js';
import { goSortSlice } from '../go-compat/index.js';
import { isRecord, type JsonValue } from '../manifest/manifest.js';
import { BundleError } from './errors.js';
import { DEPENDENCY_VALUES } from './go-types.js';
import { type LoadedBundle, loadBundle } from './load.js';

/** The key of a rendered property's value as JSON text (see {@link BundleProperty}). */
export const VALUE_JSON: unique symbol = Symbol('property value JSON');

/** One property of an FBC `olm.bundle`. */
export interface BundleProperty {
  readonly type: string;
  readonly value: JsonValue;
  /**
   * The value as the JSON text rendering built it, kept so that the JSON output matches opm's byte for byte.
   * Not enumerable: copies and comparisons see only the type and value.
   */
  readonly [VALUE_JSON]?: string;
}

/** An image of a rendered bundle. */
export interface RenderedRelatedImage {
  readonly name: string;
  readonly image: string;
}

/** The `olm.bundle` blob `opm render <bundle-dir>` produces (fields in opm's order). */
export interface OlmBundleBlob {
  readonly schema: 'olm.bundle';
  readonly name: string;
  readonly package: string;
  readonly image: string;
  readonly properties: BundleProperty[];
  readonly relatedImages?: RenderedRelatedImage[];
}

/** Options of {@link renderBundle}, mirroring opm's flags. */
export interface RenderBundleOptions {
  /**
   * The bundle image reference (opm's `--alpha-image-ref-template` result). Empty by default, which is what
   * a catalog served to a local OLM needs (inline bundle objects, no unpack job; cluster.md §5.6).
   * @default ''
   */
  readonly image?: string;
  /**
   * `bundle-object-to-csv-metadata` replaces the `olm.bundle.object` properties by one `olm.csv.metadata`.
   * Like opm, it only applies to bundles that have an image.
   * @default 'none'
   */
  readonly migrateLevel?: 'none' | 'bundle-object-to-csv-metadata';
}

/** A property with its value as the compact JSON text opm sorts on. */
interface RawProperty {
  readonly type: string;
  readonly json: string;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const rec = (v: unknown): Record<string, unknown> => (isRecord(v) ? v : {});

/** Property value JSON as opm builds it: struct field order, compact, no HTML escaping. */
const propertyJson = (value: unknown): string => goJsonMarshal(value, { sortKeys: false, escapeHtml: false });

function gvkJson(group: string, version: string, kind: string): string {
  return propertyJson({ group, kind, version });
}

/** GVKs served by the bundle's CRD files (every version) and owned API services. */
function providedApis(bundle: LoadedBundle): string[] {
  const out = new Set<string>();
  for (const { object } of bundle.manifests) {
    if (object.kind !== 'CustomResourceDefinition') continue;
    const spec = rec(object.spec);
    const kind = str(rec(spec.names).kind);
    for (const v of arr(spec.versions)) out.add(gvkJson(str(spec.group), str(rec(v).name), kind));
    if (object.apiVersion === 'apiextensions.k8s.io/v1beta1' && str(spec.version) !== '') {
      out.add(gvkJson(str(spec.group), str(spec.version), kind));
    }
  }
  for (const api of arr(rec(bundle.csv.spec.apiservicedefinitions).owned)) {
    out.add(gvkJson(str(rec(api).group), str(rec(api).version), str(rec(api).kind)));
  }
  return [...out];
}

/** GVKs the CSV requires (required CRDs and API services). */
function requiredApis(bundle: LoadedBundle): string[] {
  const out = new Set<string>();
  for (const crd of arr(rec(bundle.csv.spec.customresourcedefinitions).required)) {
    const name = str(rec(crd).name);
    const dot = name.indexOf('.');
    out.add(gvkJson(dot < 0 ? '' : name.slice(dot + 1), str(rec(crd).version), str(rec(crd).kind)));
  }
  for (const api of arr(rec(bundle.csv.spec.apiservicedefinitions).required)) {
    out.add(gvkJson(str(rec(api).group), str(rec(api).version), str(rec(api).kind)));
  }
  return [...out];
}

/** opm's `AllProvidedAPIsInBundle`: every owned CRD must be served by a CRD file of the bundle. */
function checkOwnedApis(bundle: LoadedBundle): void {
  const served = new Set<string>();
  for (const { object } of bundle.manifests) {
    if (object.kind !== 'CustomResourceDefinition') continue;
    const spec = rec(object.spec);
    for (const v of arr(spec.versions))
      served.add(
        `${str(rec(spec.names).plural)}.${str(spec.group)}/${str(rec(v).name)}/${str(rec(spec.names).kind)}`,
      );
    if (str(spec.version) !== '')
      served.add(
        `${str(rec(spec.names).plural)}.${str(spec.group)}/${str(spec.version)}/${str(rec(spec.names).kind)}`,
      );
  }
  for (const owned of arr(rec(bundle.csv.spec.customresourcedefinitions).owned)) {
    const o = rec(owned);
    const name = str(o.name);
    if (!name.includes('.')) {
      throw new BundleError('OLM_BUNDLE_MALFORMED', `couldn't parse plural.group from crd name: ${name}`);
    }
    if (!served.has(`${name}/${str(o.version)}/${str(o.kind)}`)) {
      throw new BundleError(
        'OLM_BUNDLE_MALFORMED',
        `error checking provided apis in bundle ${bundle.csv.metadata.name ?? ''}: owned CRD ${name} ${str(o.version)} ${str(o.kind)} is not in the bundle`,
      );
    }
  }
}

/**
 * `olm.properties` of the CSV annotations, as opm reads them: each value is kept as its raw JSON text
 * (invalid JSON is ignored, as opm only warns).
 */
function csvAnnotationProperties(bundle: LoadedBundle): RawProperty[] {
  const raw = bundle.csv.metadata.annotations?.['olm.properties'];
  if (raw === undefined) return [];
  try {
    const parsed: unknown = JSON.parse(raw);
    const values = rawArrayMembers(raw, 'value');
    return arr(parsed).map((p, i) => {
      const type = Object.entries(rec(p)).find(([k]) => k.toLowerCase() === 'type')?.[1];
      return { type: str(type), json: values[i] ?? 'null' };
    });
  } catch {
    return [];
  }
}

function relatedImagesOf(bundle: LoadedBundle, image: string): RenderedRelatedImage[] {
  const images: RenderedRelatedImage[] = arr(bundle.csv.spec.relatedImages).map((r) => ({
    name: str(rec(r).name),
    image: str(rec(r).image),
  }));
  const seen = new Set(images.map((i) => i.image));
  if (image !== '' && !seen.has(image)) images.push({ name: '', image });
  const install = rec(bundle.csv.spec.install);
  if (str(install.strategy) === 'deployment') {
    for (const dep of arr(rec(install.spec).deployments)) {
      const podSpec = rec(rec(rec(rec(dep).spec).template).spec);
      for (const c of [...arr(podSpec.containers), ...arr(podSpec.initContainers)]) {
        const img = str(rec(c).image);
        if (!seen.has(img)) images.push({ name: '', image: img });
        seen.add(img);
      }
    }
  }
  // opm sorts with sort.Slice, which is not stable: images listed twice keep Go's order, not the CSV's.
  return goSortSlice(images, (a, b) => byteOrder(a.image, b.image) < 0);
}

/**
 * The properties a bundle declares, as opm collects them: properties.yaml, the derived olm.package, then the
 * CSV's olm.properties annotation (a later olm.package wins), deduplicated.
 */
function declaredProperties(bundle: LoadedBundle, version: string, release: string): RawProperty[] {
  const seen = new Set<string>();
  return [
    ...bundle.properties.map((p) => ({ type: p.type, json: goJsonMarshal(p.value) })),
    {
      type: 'olm.package',
      json: propertyJson({ packageName: bundle.packageName, version, ...(release ? { release } : {}) }),
    },
    ...csvAnnotationProperties(bundle),
  ].filter((p) => {
    const key = `${p.type}\u0000${p.json}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The declared properties as opm reads them: provided APIs, the package property, and everything else. */
interface DeclaredProperties {
  readonly gvks: string[];
  readonly packageProperty: RawProperty | undefined;
  readonly others: RawProperty[];
}

/** Splits declared properties: olm.gvk values join the provided APIs; the last olm.package is re-encoded. */
function splitDeclaredProperties(declared: readonly RawProperty[]): DeclaredProperties {
  const gvks: string[] = [];
  let packageProperty: RawProperty | undefined;
  const others: RawProperty[] = [];
  for (const p of declared) {
    if (p.type === 'olm.gvk') {
      const v = rec(JSON.parse(p.json));
      gvks.push(gvkJson(str(v.group), str(v.version), str(v.kind)));
    } else if (p.type === 'olm.package') {
      const v = rec(JSON.parse(p.json));
      const rel = str(v.release);
      packageProperty = {
        type: 'olm.package',
        json: propertyJson({
          packageName: str(v.packageName),
          version: str(v.version),
          ...(rel ? { release: rel } : {}),
        }),
      };
    } else {
      others.push(p);
    }
  }
  return { gvks, packageProperty, others };
}

/** The requirements of dependencies.yaml: required APIs, required packages, and other dependency types. */
interface DependencyProperties {
  readonly gvks: string[];
  readonly packageRequired: RawProperty[];
  readonly others: RawProperty[];
}

function dependencyProperties(bundle: LoadedBundle): DependencyProperties {
  const gvks: string[] = [];
  const packageRequired: RawProperty[] = [];
  const others: RawProperty[] = [];
  for (const dep of bundle.dependencies) {
    // opm decodes the value into its Go struct: field names match case-insensitively.
    const typed = DEPENDENCY_VALUES[dep.type];
    const v = rec(typed === undefined ? dep.value : decodeGo(dep.value, typed).value);
    if (dep.type === 'olm.gvk') gvks.push(gvkJson(str(v.group), str(v.version), str(v.kind)));
    else if (dep.type === 'olm.package') {
      packageRequired.push({
        type: 'olm.package.required',
        json: propertyJson({ packageName: str(v.packageName), versionRange: str(v.version) }),
      });
    } else {
      others.push({ type: dep.type, json: goJsonMarshal(dep.value) });
    }
  }
  return { gvks, packageRequired, others };
}

/**
 * The final property order: opm moves bundle objects (and CSV metadata) to the end of the sorted list, and the
 * `bundle-object-to-csv-metadata` migration swaps the bundle objects for one `olm.csv.metadata`.
 */
function outputOrder(
  sorted: readonly RawProperty[],
  bundle: LoadedBundle,
  image: string,
  options: RenderBundleOptions,
): RawProperty[] {
  const isPayload = (p: RawProperty) => p.type === 'olm.bundle.object' || p.type === 'olm.csv.metadata';
  const ordered = [...sorted.filter((p) => !isPayload(p)), ...sorted.filter(isPayload)];
  if (
    options.migrateLevel === 'bundle-object-to-csv-metadata' &&
    image !== '' &&
    !ordered.some((p) => p.type === 'olm.csv.metadata')
  ) {
    return [
      ...ordered.filter((p) => p.type !== 'olm.bundle.object'),
      { type: 'olm.csv.metadata', json: propertyJson(csvMetadataOf(bundle.csv)) },
    ];
  }
  return ordered;
}

/** Renders a loaded bundle to the `olm.bundle` blob opm would produce for it. */
export function renderLoadedBundle(bundle: LoadedBundle, options: RenderBundleOptions = {}): OlmBundleBlob {
  checkOwnedApis(bundle);
  const image = options.image ?? '';
  const version = str(bundle.csv.spec.version);
  const release = bundle.csv.spec.release === undefined ? '' : String(bundle.csv.spec.release);

  const declared = splitDeclaredProperties(declaredProperties(bundle, version, release));
  const dependencies = dependencyProperties(bundle);
  const provided = new Set([...providedApis(bundle), ...declared.gvks]);
  const required = new Set([...dependencies.gvks, ...requiredApis(bundle)]);
  const props: RawProperty[] = [
    ...bundle.manifests.map((m) => ({
      type: 'olm.bundle.object',
      json: propertyJson({ data: Buffer.from(goJsonMarshal(m.object)).toString('base64') }),
    })),
    declared.packageProperty ?? {
      type: 'olm.package',
      json: propertyJson({ packageName: bundle.packageName, version }),
    },
    ...[...provided].map((g) => ({ type: 'olm.gvk', json: g })),
    ...[...required].map((g) => ({ type: 'olm.gvk.required', json: g })),
    ...dependencies.packageRequired,
    ...declared.others,
    ...dependencies.others,
  ];
  props.sort((a, b) => (a.type !== b.type ? byteOrder(a.type, b.type) : byteOrder(a.json, b.json)));

  const relatedImages = relatedImagesOf(bundle, image);
  return {
    schema: 'olm.bundle',
    name: bundle.csv.metadata.name ?? '',
    package: bundle.packageName,
    image,
    properties: outputOrder(props, bundle, image, options).map((p) => {
      const property: BundleProperty = { type: p.type, value: JSON.parse(p.json) as JsonValue };
      return Object.defineProperty(property, VALUE_JSON, { value: p.json });
    }),
    ...(relatedImages.length > 0 ? { relatedImages } : {}),
  };
}

/**
 * `opm render <bundle-dir>`: the `olm.bundle` blob for a bundle directory — `olm.package`, one `olm.gvk` per
 * served API, `olm.gvk.required`/`olm.package.required` from the CSV and `dependencies.yaml`, extra properties,
 * and one `olm.bundle.object` per manifest (base64 of its JSON as Go encodes it), sorted as opm sorts them.
 *
 * @throws {BundleError} `OLM_BUNDLE_MALFORMED` when the directory is not a readable bundle.
 */
export function renderBundle(dir: string, options: RenderBundleOptions = {}): OlmBundleBlob {
  return renderLoadedBundle(loadBundle(dir), options);
}

/** The blob as `opm render -o json` prints it (4-space indentation, no HTML escaping, raw property values). */
export function formatOlmBundleJson(blob: OlmBundleBlob): string {
  const doc = {
    ...blob,
    properties: blob.properties.map((p) => ({
      type: p.type,
      value: new RawJson(p[VALUE_JSON] ?? goJsonMarshal(p.value, { sortKeys: false, escapeHtml: false })),
    })),
  };
  return `${goIndentJson(goJsonMarshal(doc, { sortKeys: false, escapeHtml: false }), '    ')}\n`;
}
