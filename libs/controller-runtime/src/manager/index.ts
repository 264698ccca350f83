export { type ManagerFlags, managerCommand, parseManagerFlags } from './flags.js';
export {
  type LeaderElectionConfig,
  Manager,
  type ManagerOptions,
  type Runnable,
  setupSignalHandler,
} from './manager.js';
export { OPERATOR_NODE_OPTIONS } from './node-options.js';
export {
  type OperatorOptions,
  operatorManager,
  operatorNamespace,
  runOperatorMain,
  webhooksEnabled,
} from './operator-main.js';
