import { join } from 'node:path';

/** The root of the workspace this kit is part of (it lives at `test/cluster`). */
export const workspaceRoot = join(import.meta.dirname, '..', '..', '..');

/**
 * The released data, which is in no package: the registry+v1 bundles (`bundles/<package>/<version>`, the Nx
 * project `bundle`) and the file-based catalog (`catalog/configs`, built from `catalog/templates`, the Nx
 * project `catalog`). The tests that check the CLI against them find them here.
 */
export const releasedData = {
  bundles: join(workspaceRoot, 'bundles'),
  bundle: (pkg: string, version: string): string => join(workspaceRoot, 'bundles', pkg, version),
  catalogConfigs: join(workspaceRoot, 'catalog', 'configs'),
  catalogTemplates: join(workspaceRoot, 'catalog', 'templates'),
} as const;
