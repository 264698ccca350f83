// @opkit/controller-runtime: what an operator's code reaches for, as controller-runtime's alias.go is — the
// manager and the controller builder, the client interface, the reconcile types, the API error helpers, the
// helpers a reconcile uses most, the logger, the event recorder and the kind and object types. The rest is in
// a few subpaths (`/kinds`, `/client`, `/cache`, `/controller`, `/controllerutil`, `/manager`, `/webhook`,
// `/metrics`, `/serving`, `/testing`, and `/crd` and `/rbac` for the schema and rule types), listed in the
// package.json `exports` and the README.

export { controllerManagedBy } from './builder/index.js';
export type { ObjectClient } from './client/object-client.js';
export { findStatusCondition, setStatusConditions } from './conditions/index.js';
export { applyIfChanged } from './controllerutil/index.js';
export { ignoreNotFound, isAlreadyExists, isConflict, isNotFound } from './errors/index.js';
export { EventRecorder } from './events/index.js';
export { clientFinalizerOps, runWithFinalizer } from './finalizer/index.js';
export { createLogger, type Logger } from './log/index.js';
export { Manager, type ManagerOptions, setupSignalHandler } from './manager/manager.js';
export {
  type OperatorOptions,
  operatorManager,
  runOperatorMain,
} from './manager/operator-main.js';
export { type Condition, type Kind, type KubeObject, kind, type ObjectMeta, type Stored } from './object.js';
export { setControllerReference } from './ownerref/index.js';
export { type Reconciler, type Request, type Result, TerminalError } from './reconcile/index.js';
