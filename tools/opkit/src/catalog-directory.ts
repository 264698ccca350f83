import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { UnpackedCatalog } from '@opkit/olm/action/catalog-image';

/**
 * `source` as it is when it is a file-based catalog directory (a directory that is not an OCI image layout):
 * what most serves and diffs read, resolved here without the image, registry and git code `catalog-source.ts`
 * loads. `undefined` for anything else.
 */
export function catalogDirectory(source: string): UnpackedCatalog | undefined {
  if (!existsSync(source) || !statSync(source).isDirectory() || existsSync(join(source, 'oci-layout'))) {
    return undefined;
  }
  return { dir: source, description: source, dispose: async () => {} };
}
