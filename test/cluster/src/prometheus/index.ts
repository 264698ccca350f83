// The opt-in Prometheus of a cluster with a real node: the Prometheus Operator's install, one Prometheus, and a
// small client of Prometheus' HTTP API for tests that check targets, alerts and recording rules.
export { type PrometheusAlert, PrometheusApi, type PrometheusTarget } from './api.js';
export {
  installPrometheus,
  PROMETHEUS_NAMESPACE,
  PROMETHEUS_SERVICE_ACCOUNT,
  type PrometheusInstall,
} from './install.js';
