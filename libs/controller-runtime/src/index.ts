// The public surface of @opkit/controller-runtime, grouped as controller-runtime's packages are.

export type { KubeConfig } from '@kubernetes/client-node';
export { BuilderError, ControllerBuilder, controllerManagedBy } from './builder/builder.js';
// webhooks: admission (defaulting, validating), conversion (hub and spokes), the HTTPS server
export {
  WebhookBuilder,
  type WebhookRegistration,
  webhookManagedBy,
  webhookPath,
} from './builder/webhook-builder.js';
export { type InformerHandler, SharedInformer, stripManagedFields } from './cache/informer.js';
// cache
export {
  type CacheListOptions,
  CacheSyncTimeoutError,
  InformerCache,
  NamespaceNotCachedError,
  type ObjectCacheOptions,
} from './cache/informer-cache.js';
export { parseLabelSelector, selectorFromLabels } from './cache/label-selector.js';
export { deepFreeze, type IndexFunc, OWNER_UID_INDEX } from './cache/store.js';
export { watchNamespacesFromEnv } from './cache/watch-namespaces.js';
export {
  type AuthorityOptions,
  type CertificateAndKey,
  certificateAuthority,
  issueServingCertificate,
  type SelfSignedOptions,
  selfSignedCertificate,
} from './certs/certificates.js';
// client
export { Client } from './client/cached-client.js';
export {
  type ApplyOptions,
  type DeleteOptions,
  KubeClient,
  type ListOptions,
  type ObjectList,
  type PatchType,
  type Reader,
  retryOnConflict,
  type TypeRef,
  type WriteOptions,
} from './client/client.js';
export {
  ApiError,
  ConnectionError,
  ignoreNotFound,
  isAlreadyExists,
  isConflict,
  isGone,
  isNotFound,
} from './client/errors.js';
export { type ClusterConnection, Kubeconfig, KubeconfigError } from './client/kubeconfig.js';
export type { ClientApplyOptions, ObjectClient, ObjectRef, PatchOptions } from './client/object-client.js';
export { NoKindMatchError, ResourceMapper, type ResourceMapping } from './client/resource-mapper.js';
export { loadKubeConfig, Transport } from './client/transport.js';
// helpers for reconcilers
export * from './conditions/index.js';
export {
  Controller,
  type ControllerOptions,
  InvalidResultError,
  ReconcileTimeoutError,
  type WatchSpec,
} from './controller/controller.js';
export {
  applyIfChanged,
  type OperationResult,
  patchStatusIfChanged,
} from './controllerutil/apply-if-changed.js';
export { isPodReady } from './controllerutil/pod.js';
export {
  compareQuantities,
  parseQuantity,
  quantitiesEqual,
  quantityCeil,
} from './controllerutil/quantity.js';
export { isSubset } from './controllerutil/semantic.js';
// operator building blocks
export {
  type CrdDefinition,
  type CrdVersion,
  type CustomResourceDefinition,
  customResourceDefinition,
  type OpenApiSchema,
  toStructuralSchema,
  type WebhookClientConfig,
  withConversionWebhook,
} from './crd/custom-resource-definition.js';
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
} from './crd/schema-types.js';
export { type SchemaProblem, type SchemaValidator, schemaValidator } from './crd/schema-validator.js';
export {
  type MigrationResult,
  migrateStorageVersion,
  storageVersionMigrationRbac,
  storageVersionMigrator,
} from './crd/storage-version-migrator.js';
export * from './events/index.js';
export * from './finalizer/index.js';
export * from './handler/handlers.js';
export { type Checker, ProbeServer } from './healthz/probe-server.js';
// built-in kinds, typed by the client library's models in their JSON form
export * from './kinds/index.js';
export { LeaderElectionLostError, LeaderElector, type Lease } from './leaderelection/leader-elector.js';
export * from './log/index.js';
export { type ManagerFlags, managerCommand, parseManagerFlags } from './manager/flags.js';
// manager, leader election, probes, metrics
export {
  type LeaderElectionConfig,
  Manager,
  type ManagerOptions,
  type Runnable,
  setupSignalHandler,
} from './manager/manager.js';
export { OPERATOR_NODE_OPTIONS } from './manager/node-options.js';
export {
  type OperatorOptions,
  operatorManager,
  operatorNamespace,
  runOperatorMain,
  webhooksEnabled,
} from './manager/operator-main.js';
export {
  type ConfigApi,
  type ConfigManifestsSpec,
  configManifests,
  sampleProblems,
  writeConfigManifests,
} from './manifests/config-manifests.js';
export {
  authenticationAndAuthorization,
  type Refusal,
  type RequestFilter,
} from './metrics/auth-filter.js';
export { type ReconcileResultLabel, RuntimeMetrics } from './metrics/runtime-metrics.js';
export * from './object.js';
export * from './ownerref/index.js';
export * from './predicate/predicates.js';
// queue, reconcile, controller, builder
export * from './queue/index.js';
export {
  clusterRole,
  leaderElectionRules,
  mergePolicyRules,
  type PolicyRule,
  WildcardRuleError,
} from './rbac/policy-rules.js';
export * from './reconcile/reconcile.js';
export * from './webhook/index.js';
