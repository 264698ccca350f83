import { EventRecorder, type EventsV1Event } from '../events/recorder.js';

/**
 * An event recorder for unit tests of reconcilers: it keeps every event it would have created, in order, in
 * `recorded`, and writes nothing. Repeats within a series are counted, as the real recorder counts them.
 */
export function recordingEvents(reportingController = 'example.com/test-operator'): {
  readonly events: EventRecorder;
  readonly recorded: EventsV1Event[];
} {
  const recorded: EventsV1Event[] = [];
  const events = new EventRecorder({
    sink: {
      create: async (_namespace, event) => {
        recorded.push(event);
        return event;
      },
      patch: async () => ({}) as EventsV1Event,
    },
    reportingController,
    reportingInstance: 'test',
  });
  return { events, recorded };
}
