// @opkit/controller-runtime/metrics: the manager's Prometheus registry with controller-runtime's metric names
// (`RuntimeMetrics`), and the authentication and authorization filter of the secure metrics endpoint.
export {
  authenticationAndAuthorization,
  type FilteredRequest,
  type Refusal,
  type RequestFilter,
  type ReviewClient,
} from './auth-filter.js';
export { type ReconcileResultLabel, RuntimeMetrics } from './runtime-metrics.js';
