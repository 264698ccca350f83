import type { GoType } from '../go-compat/go-json-decode.js';

/**
 * The Go types operator-registry decodes a bundle's `metadata/` files into. Decoding through them (`decodeGo`)
 * reads field names as encoding/json does — case-insensitively (`Dependencies:`, `Type:`, `PackageName:`).
 */

const str: GoType = { kind: 'string' };

/** `bundle.AnnotationMetadata`: `metadata/annotations.yaml` as operator-sdk and opm's validator read it. */
export const ANNOTATION_METADATA: GoType = {
  kind: 'struct',
  name: 'bundle.AnnotationMetadata',
  fields: { annotations: { kind: 'map', elem: str, name: 'map[string]string' } },
};

const typeValue = (name: string): GoType => ({
  kind: 'struct',
  name: `registry.${name}`,
  fields: { type: str, value: { kind: 'raw' } },
});

/** `registry.DependenciesFile`: `metadata/dependencies.yaml`. */
export const DEPENDENCIES_FILE: GoType = {
  kind: 'struct',
  name: 'registry.DependenciesFile',
  fields: { dependencies: { kind: 'slice', elem: typeValue('Dependency'), name: '[]registry.Dependency' } },
};

/** `registry.PropertiesFile`: `metadata/properties.yaml`. */
export const PROPERTIES_FILE: GoType = {
  kind: 'struct',
  name: 'registry.PropertiesFile',
  fields: { properties: { kind: 'slice', elem: typeValue('Property'), name: '[]registry.Property' } },
};

/** The values of the dependency types operator-registry knows (`Dependency.GetTypeValue`). */
export const DEPENDENCY_VALUES: Readonly<Record<string, GoType>> = {
  'olm.gvk': {
    kind: 'struct',
    name: 'registry.GVKDependency',
    fields: { group: str, kind: str, version: str },
  },
  'olm.package': {
    kind: 'struct',
    name: 'registry.PackageDependency',
    fields: { packageName: str, version: str },
  },
  'olm.label': { kind: 'struct', name: 'registry.LabelDependency', fields: { label: str } },
  'olm.constraint': {
    kind: 'struct',
    name: 'registry.CelConstraint',
    fields: { cel: { kind: 'ptr', elem: { kind: 'struct', name: 'constraint.Cel', fields: { rule: str } } } },
  },
};
