// CustomResourceDefinitions assembled from an operator's TypeBox schemas, as controller-gen writes them from
// Go types and markers: what `config/crd/bases` and the tests' API servers install.
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
