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
