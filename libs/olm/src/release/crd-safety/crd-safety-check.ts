import type { CatalogEdge } from '../edges.js';
import type { Finding } from '../findings.js';
import { crdSafetyOfEdge } from './edge.js';

/** The CRD-safety family as the gate runs it, on every upgrade edge the release adds. */
export const crdSafetyCheck = {
  family: 'crd',
  edge: (edge: CatalogEdge): Finding[] => crdSafetyOfEdge(edge),
} as const;
