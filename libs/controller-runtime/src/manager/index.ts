// @opkit/controller-runtime/manager: running an operator process beyond the root's `Manager` and
// `runOperatorMain` — the scaffold's manager flags, runnables and health checks, leader election, the event
// and log types, the Node options of an operator image, and the storage version migrator (a runnable that
// rewrites stored objects at the CRD's storage version).
export {
  EVENT_NOTE_MAX_BYTES,
  EVENT_QUEUE_MAX,
  EVENT_SERIES_HEARTBEAT_MS,
  EVENT_SERIES_WINDOW_MS,
  EVENT_SPAM_BURST,
  EVENT_SPAM_REFILL_MS,
  type EventObjectReference,
  EventRecordError,
  type EventRecorderOptions,
  type EventSeries,
  type EventSink,
  type EventsV1Event,
  type EventType,
  InvalidEventObjectError,
} from '../events/index.js';
export type { Checker } from '../internal/healthz/probe-server.js';
export { LeaderElectionLostError } from '../internal/leaderelection/leader-elector.js';
export {
  currentLogger,
  getLogContext,
  type LogContext,
  type LogFields,
  type LoggerOptions,
  type LogLevel,
  REDACTED_KEY,
  withLogContext,
} from '../log/index.js';
export { type LeaderElectionMode, type ManagerFlags, managerCommand, parseManagerFlags } from './flags.js';
export type {
  ForLifeLeaderElectionConfig,
  LeaderElectionConfig,
  LeaseLeaderElectionConfig,
  Runnable,
} from './manager.js';
export { OPERATOR_NODE_OPTIONS } from './node-options.js';
export { operatorNamespace, webhooksEnabled } from './operator-main.js';
export {
  type MigrationResult,
  migrateStorageVersion,
  storageVersionMigrationRbac,
  storageVersionMigrator,
} from './storage-version-migrator.js';
