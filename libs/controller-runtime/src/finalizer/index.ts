export { clientFinalizerOps } from './client-ops.js';
export { addFinalizer, containsFinalizer, removeFinalizer } from './finalizers.js';
export {
  FinalizerAddError,
  FinalizerCleanupError,
  type FinalizerHandlers,
  type FinalizerOps,
  FinalizerRemoveError,
  runWithFinalizer,
} from './run-finalizer.js';
