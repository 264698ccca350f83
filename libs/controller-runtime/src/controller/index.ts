// @opkit/controller-runtime/controller: what a controller is made of beyond `controllerManagedBy` — the
// controller and its options, the map functions that turn watch events into requests (handlers), the
// predicates that filter events, the work queue's rate limiters, and the reconcile context.

export { BuilderError } from '../errors/builder-error.js';
export * from '../handler/index.js';
export {
  BucketRateLimiter,
  defaultControllerRateLimiter,
  ItemExponentialRateLimiter,
  MaxOfRateLimiter,
  type RateLimiter,
} from '../internal/queue/rate-limiter.js';
export * from '../predicate/index.js';
export { isTerminalError, type ReconcileContext } from '../reconcile/index.js';
export {
  Controller,
  type ControllerDependencies,
  type ControllerOptions,
  InvalidResultError,
  ReconcileTimeoutError,
  type WatchSpec,
} from './controller.js';
