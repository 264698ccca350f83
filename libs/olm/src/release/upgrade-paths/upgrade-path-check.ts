import type { CatalogModel } from '../../catalog/model/catalog-model.js';
import type { Finding } from '../findings.js';
import { upgradePathChanges } from './changes.js';

/**
 * The upgrade-path family as the gate runs it: every installed version's path to its channel head before and
 * after the release, under OLM v0's and OLM v1's rules.
 */
export const upgradePathCheck = {
  family: 'upgrade',
  catalog: (previous: CatalogModel, next: CatalogModel): Finding[] => [
    ...upgradePathChanges(previous, next).findings,
  ],
} as const;
