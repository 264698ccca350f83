// CRD safety of an upgrade: what OLM v1's CRD upgrade-safety preflight (crdify's validations, as
// operator-controller v1.11.0 configures them) would refuse between a bundle's CRDs and the next bundle's, and
// what it lets through that a reviewer should still see; schemas read with limits, as a catalog is untrusted.
export {
  type CompareCrdsOptions,
  type CrdFinding,
  type CrdRule,
  compareCrds,
} from './compare-crds.js';
export { crdSafetyCheck } from './crd-safety-check.js';
export { crdSafetyOfEdge } from './edge.js';
export type { PropertyRule } from './property-checks.js';
export { CrdSchemaError, DEFAULT_SCHEMA_LIMITS, type SchemaLimits } from './schema.js';
