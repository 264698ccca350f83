// The root of @opkit/controller-runtime: what an operator's code reaches for, as controller-runtime's alias.go
// is. Every module directory is also a subpath (`@opkit/controller-runtime/<directory>`) exporting all of its
// names, these included; the package.json `exports` lists them.

export { ControllerBuilder, controllerManagedBy, WebhookBuilder, webhookManagedBy } from './builder/index.js';
export {
  ApiError,
  CachedClient,
  ignoreNotFound,
  isAlreadyExists,
  isConflict,
  isGone,
  isNotFound,
  Kubeconfig,
  type ObjectClient,
  retryOnConflict,
} from './client/index.js';
export * from './conditions/index.js';
export {
  applyIfChanged,
  type ConditionEventType,
  type OperationResult,
  patchStatusIfChanged,
  patchStatusWithConditionEvents,
} from './controllerutil/index.js';
export {
  conditionSchema,
  conditionsSchema,
  customResourceSchema,
  int32,
  int64,
  quantity,
  resourceList,
  resourceRequirements,
  type SchemaProblem,
  type SchemaValidator,
  schemaValidator,
} from './crd/index.js';
export { EventRecorder, type EventType } from './events/index.js';
export {
  addFinalizer,
  clientFinalizerOps,
  containsFinalizer,
  type FinalizerHandlers,
  removeFinalizer,
  runWithFinalizer,
} from './finalizer/index.js';
export { LeaderElectionLostError } from './internal/leaderelection/index.js';
export { createLogger, currentLogger, type Logger, type LogLevel } from './log/index.js';
export {
  Manager,
  type ManagerOptions,
  type OperatorOptions,
  operatorManager,
  operatorNamespace,
  type Runnable,
  runOperatorMain,
  setupSignalHandler,
  webhooksEnabled,
} from './manager/index.js';
export * from './object.js';
export {
  getControllerOf,
  isControlledBy,
  setControllerReference,
  setOwnerReference,
} from './ownerref/index.js';
export {
  isTerminalError,
  type ReconcileContext,
  type Reconciler,
  type Request,
  type Result,
  TerminalError,
} from './reconcile/index.js';
