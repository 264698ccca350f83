// Kubernetes events (events.k8s.io/v1) as the manager's `eventRecorder(name)` records them: series, spam
// filtering and a bounded queue. `EventRecorder` is at the package root, the event types in
// `@opkit/controller-runtime/manager`.
export {
  EVENT_NOTE_MAX_BYTES,
  EVENT_QUEUE_MAX,
  EVENT_SERIES_HEARTBEAT_MS,
  EVENT_SERIES_WINDOW_MS,
  EVENT_SPAM_BURST,
  EVENT_SPAM_REFILL_MS,
  type EventObjectReference,
  EventRecordError,
  EventRecorder,
  type EventRecorderOptions,
  type EventSeries,
  type EventSink,
  type EventsV1Event,
  type EventType,
  InvalidEventObjectError,
} from './recorder.js';
