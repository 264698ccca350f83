import type { CsvMetadataProperty } from '../catalog/declcfg/properties.js';
import type { BundleRelatedImage, PackageIcon } from '../catalog/declcfg/types.js';
import { compactJson } from './property-json.js';

/** What a synthesized CSV needs besides the `olm.csv.metadata` value. */
export interface CsvSynthesisInput {
  readonly name: string;
  readonly version: string;
  readonly metadata: CsvMetadataProperty;
  readonly packageDescription?: string;
  readonly packageIcon?: PackageIcon;
  readonly relatedImages?: readonly BundleRelatedImage[];
}

const isEmpty = (v: unknown): boolean =>
  v === undefined ||
  v === null ||
  v === '' ||
  (Array.isArray(v) && v.length === 0) ||
  (typeof v === 'object' && !Array.isArray(v) && Object.keys(v as object).length === 0);

/** Go's `omitempty` for strings, slices and maps: the key is left out when the value is empty. */
function put(out: Map<string, unknown>, key: string, value: unknown): void {
  if (!isEmpty(value)) out.set(key, value);
}

/** A Go struct whose members are all `omitempty` (so an empty one encodes as `{}`). */
function omitEmptyStruct(
  value: Record<string, unknown> | undefined,
  keys: readonly string[],
): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const k of keys) put(out, k, value?.[k]);
  return out;
}

/**
 * The ClusterServiceVersion JSON opm serves for a bundle that has `olm.csv.metadata` but no CSV object
 * (`csvMetadataToCsv` in opm's model-to-API conversion): the metadata's fields in a CSV, the bundle's name and
 * version, a stub `deployment` install strategy, the package's icon, the bundle's related images, and the
 * package description when the metadata has none. Keys come in the order Go's CSV type writes them; values
 * taken from the metadata keep their own key order.
 */
export function csvJsonFromMetadata(input: CsvSynthesisInput): string {
  const m = input.metadata;
  const metadata = new Map<string, unknown>([['name', input.name]]);
  put(metadata, 'labels', m.labels);
  put(metadata, 'annotations', m.annotations);

  const spec = new Map<string, unknown>();
  spec.set(
    'install',
    new Map<string, unknown>([
      ['strategy', 'deployment'],
      ['spec', new Map([['deployments', null]])],
    ]),
  );
  put(spec, 'version', input.version);
  put(spec, 'maturity', m.maturity);
  spec.set('customresourcedefinitions', omitEmptyStruct(m.crdDescriptions, ['owned', 'required']));
  spec.set('apiservicedefinitions', omitEmptyStruct(m.apiServiceDefinitions, ['owned', 'required']));
  put(spec, 'nativeAPIs', m.nativeAPIs);
  put(spec, 'minKubeVersion', m.minKubeVersion);
  spec.set('displayName', m.displayName ?? '');
  put(spec, 'description', m.description || input.packageDescription);
  put(spec, 'keywords', m.keywords);
  put(spec, 'maintainers', m.maintainers);
  spec.set('provider', omitEmptyStruct(m.provider, ['name', 'url']));
  put(spec, 'links', m.links);
  if (input.packageIcon) {
    spec.set('icon', [
      new Map([
        ['base64data', input.packageIcon.base64data],
        ['mediatype', input.packageIcon.mediatype],
      ]),
    ]);
  }
  put(spec, 'installModes', m.installModes);
  spec.set('cleanup', new Map([['enabled', false]]));
  put(
    spec,
    'relatedImages',
    input.relatedImages?.map(
      (r) =>
        new Map([
          ['name', r.name],
          ['image', r.image],
        ]),
    ),
  );

  const csv = new Map<string, unknown>([
    ['kind', 'ClusterServiceVersion'],
    ['apiVersion', 'operators.coreos.com/v1alpha1'],
    ['metadata', metadata],
    ['spec', spec],
    ['status', new Map([['cleanup', new Map()]])],
  ]);
  return compactJson(csv);
}
