import type { GoType } from '../../go-compat/go-json-decode.js';

/**
 * The Go types opm decodes FBC blobs and properties into (operator-registry v1.73.0 `alpha/declcfg` and
 * `alpha/property`, operator-framework/api `v1alpha1`), so type errors read exactly like opm's.
 */

const str: GoType = { kind: 'string' };
const strings: GoType = { kind: 'slice', elem: str, name: '[]string' };
const stringMap: GoType = { kind: 'map', elem: str, name: 'map[string]string' };
const any: GoType = { kind: 'any' };

const property: GoType = {
  kind: 'struct',
  name: 'property.Property',
  fields: { type: str, value: { kind: 'raw' } },
};
const properties: GoType = { kind: 'slice', elem: property, name: '[]property.Property' };

export const GO_PACKAGE: GoType = {
  kind: 'struct',
  name: 'declcfg.Package',
  fields: {
    schema: str,
    name: str,
    defaultChannel: str,
    icon: {
      kind: 'ptr',
      elem: {
        kind: 'struct',
        name: 'declcfg.Icon',
        fields: { base64data: { kind: 'bytes' }, mediatype: str },
      },
    },
    description: str,
    properties,
  },
};

const channelEntry: GoType = {
  kind: 'struct',
  name: 'declcfg.ChannelEntry',
  fields: { name: str, replaces: str, skips: strings, skipRange: str },
};

export const GO_CHANNEL: GoType = {
  kind: 'struct',
  name: 'declcfg.Channel',
  fields: {
    schema: str,
    name: str,
    package: str,
    entries: { kind: 'slice', elem: channelEntry, name: '[]declcfg.ChannelEntry' },
    properties,
  },
};

const relatedImage: GoType = {
  kind: 'struct',
  name: 'declcfg.RelatedImage',
  fields: { name: str, image: str },
};

export const GO_BUNDLE: GoType = {
  kind: 'struct',
  name: 'declcfg.Bundle',
  fields: {
    schema: str,
    name: str,
    package: str,
    image: str,
    properties,
    relatedImages: { kind: 'slice', elem: relatedImage, name: '[]declcfg.RelatedImage' },
  },
};

const deprecationEntry: GoType = {
  kind: 'struct',
  name: 'declcfg.DeprecationEntry',
  fields: {
    reference: { kind: 'struct', name: 'declcfg.PackageScopedReference', fields: { schema: str, name: str } },
    message: str,
  },
};

export const GO_DEPRECATION: GoType = {
  kind: 'struct',
  name: 'declcfg.Deprecation',
  fields: {
    schema: str,
    package: str,
    entries: { kind: 'slice', elem: deprecationEntry, name: '[]declcfg.DeprecationEntry' },
  },
};

const gvkFields = { group: str, kind: str, version: str };
const appLink: GoType = { kind: 'struct', name: 'v1alpha1.AppLink', fields: { name: str, url: str } };
const crdDescriptions: GoType = {
  kind: 'struct',
  name: 'v1alpha1.CustomResourceDefinitions',
  fields: {
    owned: { kind: 'slice', elem: any, name: '[]v1alpha1.CRDDescription' },
    required: { kind: 'slice', elem: any, name: '[]v1alpha1.CRDDescription' },
  },
};
const apiServiceDefinitions: GoType = {
  kind: 'struct',
  name: 'v1alpha1.APIServiceDefinitions',
  fields: {
    owned: { kind: 'slice', elem: any, name: '[]v1alpha1.APIServiceDescription' },
    required: { kind: 'slice', elem: any, name: '[]v1alpha1.APIServiceDescription' },
  },
};

/** Go types of the property values `property.Parse` decodes; any other type only has to be valid JSON. */
export const GO_PROPERTY_VALUES: Readonly<Record<string, GoType>> = {
  'olm.package': {
    kind: 'struct',
    name: 'property.Package',
    fields: { packageName: str, version: str, release: str },
  },
  'olm.package.required': {
    kind: 'struct',
    name: 'property.PackageRequired',
    fields: { packageName: str, versionRange: str },
  },
  'olm.gvk': { kind: 'struct', name: 'property.GVK', fields: gvkFields },
  'olm.gvk.required': { kind: 'struct', name: 'property.GVKRequired', fields: gvkFields },
  'olm.bundle.object': { kind: 'struct', name: 'property.BundleObject', fields: { data: { kind: 'bytes' } } },
  'olm.csv.metadata': {
    kind: 'struct',
    name: 'property.CSVMetadata',
    fields: {
      annotations: stringMap,
      apiServiceDefinitions,
      crdDescriptions,
      description: str,
      displayName: str,
      installModes: {
        kind: 'slice',
        name: '[]v1alpha1.InstallMode',
        elem: {
          kind: 'struct',
          name: 'v1alpha1.InstallMode',
          fields: {
            type: { kind: 'string', name: 'v1alpha1.InstallModeType' },
            supported: { kind: 'bool' },
          },
        },
      },
      keywords: strings,
      labels: stringMap,
      links: { kind: 'slice', elem: appLink, name: '[]v1alpha1.AppLink' },
      maintainers: {
        kind: 'slice',
        name: '[]v1alpha1.Maintainer',
        elem: { kind: 'struct', name: 'v1alpha1.Maintainer', fields: { name: str, email: str } },
      },
      maturity: str,
      minKubeVersion: str,
      nativeAPIs: {
        kind: 'slice',
        name: '[]v1.GroupVersionKind',
        elem: { kind: 'struct', name: 'v1.GroupVersionKind', fields: gvkFields },
      },
      provider: appLink,
    },
  },
  'olm.channel': {
    kind: 'struct',
    name: 'property.Channel',
    fields: { channelName: str, priority: { kind: 'int' } },
  },
};
