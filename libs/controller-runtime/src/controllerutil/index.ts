// @opkit/controller-runtime/controllerutil: the helpers a reconcile uses — apply only what changed and patch
// status with condition events, status conditions, finalizers, owner references, the namespace of a stored
// object, and small tests of pods, quantities and desired-versus-live objects.
export {
  type ConditionsResult,
  type ConditionUpdate,
  findStatusCondition,
  isStatusConditionFalse,
  isStatusConditionPresentAndEqual,
  isStatusConditionTrue,
  removeStatusCondition,
  setStatusCondition,
  setStatusConditions,
} from '../conditions/index.js';
export {
  addFinalizer,
  clientFinalizerOps,
  containsFinalizer,
  FinalizerAddError,
  FinalizerCleanupError,
  type FinalizerHandlers,
  type FinalizerOps,
  FinalizerRemoveError,
  removeFinalizer,
  runWithFinalizer,
} from '../finalizer/index.js';
export { namespaceOf } from '../object.js';
export {
  AlreadyOwnedError,
  CrossNamespaceOwnerError,
  getControllerOf,
  InvalidOwnerError,
  isControlledBy,
  setControllerReference,
  setOwnerReference,
} from '../ownerref/index.js';
export {
  applyIfChanged,
  type ConditionEventType,
  type OperationResult,
  patchStatusIfChanged,
  patchStatusWithConditionEvents,
} from './apply-if-changed.js';
export { isPodReady } from './pod.js';
export { compareQuantities, parseQuantity, quantitiesEqual, quantityCeil } from './quantity.js';
export { isSubset } from './semantic.js';
