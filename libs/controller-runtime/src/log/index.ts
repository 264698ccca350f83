// The structured logger, with the reconcile's fields (controller, request, reconcileID) carried in the async
// context. `createLogger` and `Logger` are at the package root, the rest in `@opkit/controller-runtime/manager`.
export {
  createLogger,
  currentLogger,
  getLogContext,
  type LogContext,
  type LogFields,
  type Logger,
  type LoggerOptions,
  type LogLevel,
  REDACTED_KEY,
  withLogContext,
} from './logger.js';
