import type { CatalogModel } from '../../catalog/model/catalog-model.js';
import type { Finding } from '../findings.js';
import { diffFindings } from './changes.js';
import { diffCatalogs } from './diff-catalogs.js';

/**
 * The diff family as the gate runs it: every change between the two catalogs, by meaning. Its findings are
 * warnings and notes, never failures by default: whether a change strands anyone is the upgrade-path family's call.
 */
export const diffCheck = {
  family: 'diff',
  catalog: (previous: CatalogModel, next: CatalogModel): Finding[] =>
    diffFindings(diffCatalogs(previous, next)),
} as const;
