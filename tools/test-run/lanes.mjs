// What each lane of `npm test` (run.mjs) runs after the builds. Only one real node runs on a machine, so the
// `node` lane runs the Nx test tasks of the test files that need it, one after another; the `other` lane runs
// everything else beside it. A package whose tests need the real node only in part splits its `test` target
// into two configurations: `real-node` (its vitest projects that need the node: `real-node`, or `e2e` where it
// shares the real-node cluster) and `no-real-node` (all the others). packaging's unit test `test-lanes.spec.ts`
// reads this file and fails when a test file that starts a real node would run in the `other` lane.

/**
 * The node lane's tasks, in the order it runs them: the Redis operator's last and longest, when the other lane
 * has most likely finished, so its fault matrix and rolling restarts run on an otherwise quiet machine.
 */
export const REAL_NODE_SUITES = [
  'olm-e2e:test',
  'cluster:test:real-node',
  'author-e2e:test',
  'opkit:test:real-node',
  'memcached:test:real-node',
  'controller-runtime:test:real-node',
  'redis:test:real-node',
];

/** The rest of the tests of the projects the node lane runs: the other lane runs them after all other tests. */
export const NO_REAL_NODE_SUITES = [
  'cluster:test:no-real-node',
  'opkit:test:no-real-node',
  'controller-runtime:test:no-real-node',
  'memcached:test:no-real-node',
  'redis:test:no-real-node',
];

/** The projects the node lane runs tests of: the other lane's `run-many -t test` leaves them out. */
export const REAL_NODE_PROJECTS = [...new Set(REAL_NODE_SUITES.map((suite) => suite.split(':')[0]))];
