import { sharedClusterSetup } from './global-setup.js';

/**
 * A vitest global setup for suites whose operands' pods only need to become Ready: a kwok-only control plane
 * with three kwok nodes, where kwok marks every scheduled pod Running and Ready at once (with an address) and
 * deletes terminating pods at once. No real node, so it can run beside another test run.
 */
export default sharedClusterSetup({ realNode: false, nodes: 3 });
