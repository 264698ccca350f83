export {
  authenticationAndAuthorization,
  type FilteredRequest,
  type Refusal,
  type RequestFilter,
  type ReviewClient,
} from './auth-filter.js';
export { type ReconcileResultLabel, RuntimeMetrics } from './runtime-metrics.js';
