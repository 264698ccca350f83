export { authenticationAndAuthorization, type Refusal, type RequestFilter } from './auth-filter.js';
export { type ReconcileResultLabel, RuntimeMetrics } from './runtime-metrics.js';
