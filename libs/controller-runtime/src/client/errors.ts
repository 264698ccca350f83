/** A Kubernetes API error: the HTTP status and the `Status` object's reason and message. */
export class ApiError extends Error {
  readonly code = 'KUBE_API_ERROR';
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
    readonly method: string,
    readonly path: string,
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

const statusIs = (status: number) => (error: unknown) => error instanceof ApiError && error.status === status;

export const isNotFound = statusIs(404);
export const isConflict = (error: unknown): boolean =>
  statusIs(409)(error) && (error as ApiError).reason === 'Conflict';
export const isAlreadyExists = (error: unknown): boolean =>
  statusIs(409)(error) && (error as ApiError).reason === 'AlreadyExists';
/** The resourceVersion is too old (410 Gone / Expired): a watch or list must start over. */
export const isGone = statusIs(410);
