export { type AfterWrite, ApiProxy, type ProxiedWrite, type ServingCertificate } from './api-proxy.js';
export {
  cellId,
  cellOrder,
  type FaultCell,
  type FaultKind,
  type FaultMatrixOptions,
  type FaultMatrixReport,
  type FaultOperation,
  type FaultPlan,
  type FaultRun,
  formatMatrix,
  plannedSteps,
  reachedShare,
  runFaultMatrix,
  selectsCell,
} from './matrix.js';
export {
  type OperatorCommand,
  OperatorProcess,
  operatorFromSources,
  type SourceOperatorOptions,
} from './operator-process.js';
export type { WatchRelease } from './watch-hold.js';
