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
