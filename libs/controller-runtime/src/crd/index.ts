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
export { type SchemaProblem, type SchemaValidator, schemaValidator } from './schema-validator.js';
export {
  type MigrationResult,
  migrateStorageVersion,
  storageVersionMigrationRbac,
  storageVersionMigrator,
} from './storage-version-migrator.js';
