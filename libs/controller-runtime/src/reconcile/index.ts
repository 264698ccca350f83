// The reconcile contract: a `Request` (namespace and name), the `Result` (requeue after, priority), the
// `Reconciler` function with its context, and `TerminalError` for failures a retry cannot fix. The types are
// at the package root; the context and `isTerminalError` in `@opkit/controller-runtime/controller`.
export {
  isTerminalError,
  type ReconcileContext,
  type Reconciler,
  type Request,
  type Result,
  TerminalError,
} from './reconcile.js';
