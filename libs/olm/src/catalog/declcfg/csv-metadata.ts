/**
 * The `olm.csv.metadata` property value opm derives from a ClusterServiceVersion (operator-registry
 * `property.MustBuildCSVMetadata`): rendering a bundle writes it, and the `bundle-object-to-csv-metadata`
 * migration puts it in place of a bundle's `olm.bundle.object` properties.
 */

import { isRecord, type Manifest } from '../../manifest/manifest.js';

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const rec = (v: unknown): Record<string, unknown> => (isRecord(v) ? v : {});

/** A struct field opm copies: its JSON name, and whether it is written even when empty (no `omitempty`). */
type StructField = readonly [key: string, required: boolean];

/** The fields of `o` a Go struct with these JSON tags keeps: required ones always, the others unless empty. */
function pickFields(o: unknown, fields: readonly StructField[]): Record<string, unknown> {
  const src = rec(o);
  const out: Record<string, unknown> = {};
  for (const [key, required] of fields) {
    const v = src[key];
    if (
      required ||
      !(v === undefined || v === null || v === '' || v === 0 || (Array.isArray(v) && v.length === 0))
    ) {
      out[key] = v ?? (required ? '' : undefined);
    }
  }
  return out;
}

const descriptorOf = (d: unknown) =>
  pickFields(d, [
    ['path', true],
    ['displayName', false],
    ['description', false],
    ['x-descriptors', false],
    ['value', false],
  ]);

const apiResourcesOf = (r: unknown) =>
  arr(r).map((x) =>
    pickFields(x, [
      ['name', true],
      ['kind', true],
      ['version', true],
    ]),
  );

/** A CRD or API service description: its `head` fields, display fields, then its resources and descriptors. */
function describedApi(d: unknown, head: readonly StructField[]): Record<string, unknown> {
  const out = pickFields(d, [...head, ['displayName', false], ['description', false]]);
  const src = rec(d);
  for (const key of ['resources', 'statusDescriptors', 'specDescriptors', 'actionDescriptors']) {
    const list = arr(src[key]);
    if (list.length > 0) out[key] = key === 'resources' ? apiResourcesOf(list) : list.map(descriptorOf);
  }
  return out;
}

const crdDescriptionOf = (d: unknown) =>
  describedApi(d, [
    ['name', true],
    ['version', true],
    ['kind', true],
  ]);

function apiServiceDescriptionOf(d: unknown): Record<string, unknown> {
  const head = pickFields(d, [
    ['name', true],
    ['group', true],
    ['version', true],
    ['kind', true],
    ['deploymentName', false],
    ['containerPort', false],
  ]);
  return { ...head, ...describedApi(d, []) };
}

/** The `owned` and `required` lists of a CSV's CRD or API service definitions, each left out when empty. */
function ownedAndRequired(o: unknown, describe: (d: unknown) => unknown): Record<string, unknown> {
  const src = rec(o);
  const out: Record<string, unknown> = {};
  if (arr(src.owned).length > 0) out.owned = arr(src.owned).map(describe);
  if (arr(src.required).length > 0) out.required = arr(src.required).map(describe);
  return out;
}

/** The `olm.csv.metadata` value opm derives from a CSV (operator-registry `property.MustBuildCSVMetadata`). */
export function csvMetadataOf(csv: Manifest): Record<string, unknown> {
  const spec = rec(csv.spec);
  const value: Record<string, unknown> = {};
  const annotations = csv.metadata.annotations;
  if (annotations !== undefined && Object.keys(annotations).length > 0) value.annotations = annotations;
  value.apiServiceDefinitions = ownedAndRequired(spec.apiservicedefinitions, apiServiceDescriptionOf);
  value.crdDescriptions = ownedAndRequired(spec.customresourcedefinitions, crdDescriptionOf);
  if (str(spec.description) !== '') value.description = spec.description;
  if (str(spec.displayName) !== '') value.displayName = spec.displayName;
  if (arr(spec.installModes).length > 0)
    value.installModes = arr(spec.installModes).map((m) =>
      pickFields(m, [
        ['type', true],
        ['supported', true],
      ]),
    );
  if (arr(spec.keywords).length > 0) value.keywords = spec.keywords;
  const labels = csv.metadata.labels;
  if (labels !== undefined && Object.keys(labels).length > 0) value.labels = labels;
  if (arr(spec.links).length > 0)
    value.links = arr(spec.links).map((l) =>
      pickFields(l, [
        ['name', false],
        ['url', false],
      ]),
    );
  if (arr(spec.maintainers).length > 0)
    value.maintainers = arr(spec.maintainers).map((m) =>
      pickFields(m, [
        ['name', false],
        ['email', false],
      ]),
    );
  if (str(spec.maturity) !== '') value.maturity = spec.maturity;
  if (str(spec.minKubeVersion) !== '') value.minKubeVersion = spec.minKubeVersion;
  if (arr(spec.nativeAPIs).length > 0)
    value.nativeAPIs = arr(spec.nativeAPIs).map((g) =>
      pickFields(g, [
        ['group', true],
        ['version', true],
        ['kind', true],
      ]),
    );
  value.provider = pickFields(spec.provider, [
    ['name', false],
    ['url', false],
  ]);
  return value;
}
