import type { CatalogModel } from '../../catalog/model/catalog-model.js';
import type { CatalogEdge } from '../edges.js';
import type { Finding } from '../findings.js';

/**
 * One family of release checks as the gate runs it: `catalog` gets both revisions of the catalog (a diff,
 * upgrade paths), `edge` each upgrade edge the release adds (CRD safety, permissions). A family has either or both.
 */
export interface ReleaseCheck {
  /** The family's rule prefix: its findings' rules are `<family>/<rule>`. */
  readonly family: string;
  catalog?(previous: CatalogModel, next: CatalogModel): Finding[];
  edge?(edge: CatalogEdge): Finding[];
}
