import { sharedClusterSetup } from './global-setup.js';

/**
 * A vitest global setup for suites that run no pods: the control plane alone (kwok-only, no kwok nodes),
 * which starts in seconds and, unlike the real node, can run beside another test run.
 */
export default sharedClusterSetup({ realNode: false, nodes: 0 });
