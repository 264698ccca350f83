import { bundleBlob, channelBlob, pkgBlob } from '../../catalog/declcfg/spec-fixtures.js';
import type { Catalog, ChannelEntry } from '../../catalog/declcfg/types.js';
import type { CatalogModel } from '../../catalog/model/catalog-model.js';
import { convertToModel } from '../../catalog/model/convert-to-model.js';

/** Test helper: the channels of package `op`, each entry `op.v<version>` with a bundle of that version. */
export function opCatalog(
  channels: Record<string, ChannelEntry[]>,
  options: { defaultChannel?: string; deprecated?: string[] } = {},
): CatalogModel {
  const names = new Set(Object.values(channels).flatMap((entries) => entries.map((e) => e.name)));
  const catalog: Catalog = {
    packages: [pkgBlob('op', options.defaultChannel ?? Object.keys(channels)[0])],
    channels: Object.entries(channels).map(([name, entries]) => channelBlob('op', name, entries)),
    bundles: [...names].map((name) => {
      const bundle = bundleBlob('op', name.slice('op.v'.length), name);
      return { ...bundle, image: bundle.image.replace('+', '_') }; // build metadata is not a valid tag
    }),
    deprecations: options.deprecated
      ? [
          {
            schema: 'olm.deprecations',
            package: 'op',
            entries: options.deprecated.map((name) => ({
              reference: { schema: 'olm.bundle', name },
              message: `${name} is deprecated`,
            })),
          },
        ]
      : [],
    others: [],
  };
  return convertToModel(catalog, (code, message) => {
    throw new Error(`test catalog does not convert: ${code} ${message}`);
  });
}
