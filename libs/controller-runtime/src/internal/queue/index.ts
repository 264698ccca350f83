// Internal: the controllers' work queue (dedup by key, one in flight per key, priorities, delayed adds) and its
// rate limiters and metrics. The rate limiters are public through `@opkit/controller-runtime/controller`.
export { type Clock, FakeClock, realClock } from './clock.js';
export { WorkQueueOptionError } from './errors.js';
export {
  noopQueueMetrics,
  prometheusQueueMetrics,
  type UnfinishedWork,
  type WorkQueueMetrics,
} from './metrics.js';
export {
  BucketRateLimiter,
  defaultControllerRateLimiter,
  ItemExponentialRateLimiter,
  MaxOfRateLimiter,
  type RateLimiter,
} from './rate-limiter.js';
export {
  type AddOptions,
  type GetOptions,
  type QueueItem,
  WorkQueue,
  type WorkQueueOptions,
} from './work-queue.js';
