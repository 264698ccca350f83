// @opkit/controller-runtime/crd: TypeBox types for an API's schema (conditions, quantities, int32/int64); the CRD
// itself is assembled at build time by @opkit/controller-tools.
export {
  conditionSchema,
  conditionsSchema,
  customResourceSchema,
  int32,
  int64,
  QUANTITY_PATTERN,
  quantity,
  resourceList,
  resourceRequirements,
  schemaDefault,
} from './schema-types.js';
