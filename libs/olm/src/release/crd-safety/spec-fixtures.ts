// Small CRDs for the CRD safety tests: one namespaced `widgets.example.com` whose spec has a field of every
// kind the rules look at, changed one way or another by each case.

/** A JSON schema node as a manifest holds it. */
export type RawSchema = Record<string, unknown>;

/** A CRD manifest as a bundle holds it. */
export interface RawCrd {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: {
    group: string;
    names: Record<string, string>;
    scope: string;
    conversion?: Record<string, unknown>;
    versions: RawVersion[];
  };
  status?: { storedVersions?: string[] };
}

export interface RawVersion {
  name: string;
  served: boolean;
  storage: boolean;
  schema: { openAPIV3Schema: RawSchema };
}

/** The spec schema every widget version starts from. */
export function widgetSpec(): RawSchema {
  return {
    type: 'object',
    description: 'WidgetSpec is the desired state of a Widget.',
    required: ['size'],
    properties: {
      size: { type: 'integer', format: 'int32', minimum: 1, maximum: 10, default: 3 },
      mode: { type: 'string', enum: ['fast', 'safe'] },
      name: { type: 'string', pattern: '^[a-z]+$', maxLength: 63 },
      tags: { type: 'array', maxItems: 5, items: { type: 'string' } },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
      extra: {
        type: 'object',
        'x-kubernetes-preserve-unknown-fields': true,
        properties: { note: { type: 'string' } },
      },
      shape: { oneOf: [{ required: ['circle'] }, { required: ['square'] }], type: 'object' },
    },
  };
}

/** One version of the widget CRD with the given spec schema. */
export function widgetVersion(name: string, storage: boolean, spec: RawSchema = widgetSpec()): RawVersion {
  return {
    name,
    served: true,
    storage,
    schema: {
      openAPIV3Schema: {
        type: 'object',
        properties: {
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          metadata: { type: 'object' },
          spec,
        },
      },
    },
  };
}

/** The widget CRD with one stored version `v1`, changed by `edit` (which gets a fresh copy). */
export function widgets(edit?: (crd: RawCrd) => void): RawCrd {
  const crd: RawCrd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      names: { kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget' },
      scope: 'Namespaced',
      versions: [widgetVersion('v1', true)],
    },
  };
  edit?.(crd);
  return crd;
}

/** The spec schema of a version of a widget CRD, to change in place. */
export function specOf(crd: RawCrd, version = 'v1'): RawSchema {
  const found = crd.spec.versions.find((v) => v.name === version);
  if (found === undefined) throw new Error(`widgets has no version ${version}`);
  return (found.schema.openAPIV3Schema.properties as Record<string, RawSchema>).spec as RawSchema;
}

/** A field of a widget version's spec, to change in place. */
export function fieldOf(crd: RawCrd, field: string, version = 'v1'): RawSchema {
  return (specOf(crd, version).properties as Record<string, RawSchema>)[field] as RawSchema;
}
