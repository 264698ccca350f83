/** A Kubernetes API error: the HTTP status and the `Status` object's reason and message. */
export class ApiError extends Error {
  readonly code = 'KUBE_API_ERROR';
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
    readonly method: string,
    readonly path: string,
    /** The `Status` object's message alone (the answer's text when it was none), for callers' own messages. */
    readonly statusMessage: string = message,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The API server could not be reached (connection refused or reset, timeout). */
export class ConnectionError extends Error {
  readonly code = 'KUBE_CONNECTION_ERROR';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ConnectionError';
  }
}

/** The ApiError in an error's cause chain (errors wrapped by helpers keep the original as `cause`). */
function apiErrorIn(error: unknown): ApiError | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e instanceof ApiError) return e;
  }
  return undefined;
}

const statusIs = (status: number) => (error: unknown) => apiErrorIn(error)?.status === status;

export const isNotFound = statusIs(404);
export const isConflict = (error: unknown): boolean =>
  statusIs(409)(error) && apiErrorIn(error)?.reason === 'Conflict';
export const isAlreadyExists = (error: unknown): boolean =>
  statusIs(409)(error) && apiErrorIn(error)?.reason === 'AlreadyExists';
/** The resourceVersion is too old (410 Gone / Expired): a watch or list must start over. */
export const isGone = statusIs(410);

/**
 * `client.IgnoreNotFound` for a read: the object, or `undefined` when it does not exist; other errors are
 * thrown. `const deployment = await ignoreNotFound(client.get(DEPLOYMENT, name, namespace))`.
 */
export async function ignoreNotFound<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}
