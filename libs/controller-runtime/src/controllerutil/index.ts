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
