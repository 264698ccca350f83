// Finalizers: add, remove and test one on an object, and `runWithFinalizer`, which keeps a finalizer on an
// object while it lives and runs its cleanup before letting it go. `runWithFinalizer` is at the package root,
// all of it in `@opkit/controller-runtime/controllerutil`.
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
