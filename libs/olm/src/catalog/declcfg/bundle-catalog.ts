import { CatalogError } from './errors.js';
import { type BundleBlob, type Catalog, SCHEMA_CHANNEL, SCHEMA_PACKAGE } from './types.js';

/**
 * The smallest catalog that installs one bundle, as `operator-sdk run bundle` builds it: the bundle's package
 * with `channel` as its default channel, that channel holding the bundle alone, and the bundle blob itself
 * (rendered from its image, so OLM unpacks it from there).
 */
export function singleBundleCatalog(bundle: BundleBlob, channel: string): Catalog {
  return {
    packages: [{ schema: SCHEMA_PACKAGE, name: bundle.package, defaultChannel: channel }],
    channels: [
      { schema: SCHEMA_CHANNEL, name: channel, package: bundle.package, entries: [{ name: bundle.name }] },
    ],
    bundles: [bundle],
    deprecations: [],
    others: [],
  };
}

/**
 * The catalog with `bundle` added to `channel` as the upgrade of `replaces`, as `operator-sdk run
 * bundle-upgrade` adds it. The input is not changed.
 *
 * @throws CatalogError `CATALOG_INVALID` when the bundle is of another package or already in the catalog,
 *   `replaces` is not one of the package's bundles, or the channel does not exist.
 */
export function withUpgradeBundle(
  catalog: Catalog,
  bundle: BundleBlob,
  options: { readonly channel: string; readonly replaces: string },
): Catalog {
  if (!catalog.packages.some((p) => p.name === bundle.package)) {
    throw new CatalogError(
      'CATALOG_INVALID',
      `the catalog has no package ${bundle.package}: the new bundle must be of the installed package (${catalog.packages.map((p) => p.name).join(', ') || 'none'})`,
    );
  }
  if (catalog.bundles.some((b) => b.package === bundle.package && b.name === bundle.name)) {
    throw new CatalogError('CATALOG_INVALID', `the catalog already has bundle ${bundle.name}`);
  }
  if (!catalog.bundles.some((b) => b.package === bundle.package && b.name === options.replaces)) {
    throw new CatalogError(
      'CATALOG_INVALID',
      `the catalog has no bundle ${options.replaces} for ${bundle.name} to replace`,
    );
  }
  const entry = { name: bundle.name, replaces: options.replaces };
  const existing = catalog.channels.find((c) => c.package === bundle.package && c.name === options.channel);
  if (existing === undefined) {
    throw new CatalogError(
      'CATALOG_INVALID',
      `the catalog has no channel ${options.channel} of ${bundle.package}`,
    );
  }
  const channels = catalog.channels.map((c) =>
    c === existing ? { ...c, entries: [...c.entries, entry] } : c,
  );
  return { ...catalog, channels, bundles: [...catalog.bundles, bundle] };
}
