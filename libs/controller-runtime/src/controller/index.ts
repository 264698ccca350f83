export {
  Controller,
  type ControllerOptions,
  InvalidResultError,
  ReconcileTimeoutError,
  type WatchSpec,
} from './controller.js';
