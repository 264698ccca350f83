/** An argument to a work-queue method is out of range (a non-finite priority or delay). */
export class WorkQueueOptionError extends RangeError {
  /** Stable, for programmatic handling. */
  readonly code = 'ERR_WORK_QUEUE_OPTION';

  constructor(message: string) {
    super(message);
    this.name = 'WorkQueueOptionError';
  }
}
