// @opkit/controller-runtime/crd (build time): TypeBox schema types and the assembly of a CustomResourceDefinition.
export {
  type CrdDefinition,
  type CrdVersion,
  type CustomResourceDefinition,
  customResourceDefinition,
  type OpenApiSchema,
  toStructuralSchema,
  type WebhookClientConfig,
  withConversionWebhook,
} from './custom-resource-definition.js';
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
