import { sharedClusterSetup } from './global-setup.js';

/**
 * A vitest global setup for suites that check an operator's metrics in a real Prometheus: a real node, the
 * Prometheus Operator and one Prometheus (in `monitoring`, its Service `prometheus:9090`).
 */
export default sharedClusterSetup({ prometheus: true });
