import { type BlobSource, type BundleBlob, SCHEMA_BUNDLE } from '../catalog/declcfg/types.js';
import type { OlmBundleBlob } from './render.js';

/**
 * A rendered bundle as the catalog's `olm.bundle` blob: the blob loading `opm render`'s output of it gives, with
 * the property values as decoded JSON (the catalog writes them again as Go does) and `source` when given.
 * The values are shared with the rendered blob, not copied: neither is changed after it is made.
 */
export function toCatalogBundle(rendered: OlmBundleBlob, source?: BlobSource): BundleBlob {
  const blob: BundleBlob = {
    schema: SCHEMA_BUNDLE,
    name: rendered.name,
    package: rendered.package,
    image: rendered.image,
    properties: rendered.properties.map((p) => ({ type: p.type, value: p.value })),
  };
  if (rendered.relatedImages !== undefined && rendered.relatedImages.length > 0) {
    blob.relatedImages = rendered.relatedImages.map((r) => ({ name: r.name, image: r.image }));
  }
  if (source !== undefined) blob.source = source;
  return blob;
}
