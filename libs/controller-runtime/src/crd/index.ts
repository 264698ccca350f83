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
export { type SchemaProblem, type SchemaValidator, schemaValidator } from '../webhook/schema-validator.js';
export {
  type MigrationResult,
  migrateStorageVersion,
  storageVersionMigrationRbac,
  storageVersionMigrator,
} from '../manager/storage-version-migrator.js';
