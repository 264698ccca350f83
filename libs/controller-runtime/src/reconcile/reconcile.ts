/** Which object to reconcile: controllers work on keys, never on event payloads. */
export interface Request {
  readonly namespace?: string;
  readonly name: string;
}

/**
 * What a reconcile asks for next. Nothing (or `{}`): done until something changes. `requeueAfterMs`: look
 * again after this long (controller-runtime's `RequeueAfter`). `priority`: queue priority of that requeue.
 */
export interface Result {
  readonly requeueAfterMs?: number;
  readonly priority?: number;
}

export interface ReconcileContext {
  /** Aborted when the reconcile times out or the manager shuts down. */
  readonly signal: AbortSignal;
  /** Unique id of this reconcile, also in every log line it writes. */
  readonly reconcileID: string;
  readonly controller: string;
}

/** The function a controller calls for each key: bring the world in line with the object's spec. */
// biome-ignore lint/suspicious/noConfusingVoidType: lets `async (req) => { … }` (Promise<void>) be a Reconciler
export type Reconciler = (request: Request, context: ReconcileContext) => Promise<Result | undefined | void>;

/**
 * An error that retrying cannot fix (invalid spec, unsupported configuration). It is counted in
 * `controller_runtime_terminal_reconcile_errors_total` and the key is not requeued; the next change to the
 * object reconciles it again.
 */
export class TerminalError extends Error {
  readonly code = 'RUNTIME_TERMINAL_ERROR';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'TerminalError';
  }
}

export function isTerminalError(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) if (e instanceof TerminalError) return true;
  return false;
}

/** Priority of events that come from an informer's initial list: live changes go first. */
export const LOW_PRIORITY = -100;

export function requestKey(request: Request): string {
  return request.namespace ? `${request.namespace}/${request.name}` : request.name;
}

export function requestFromKey(key: string): Request {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
