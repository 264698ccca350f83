// The runtime's errors carry a brand from the global symbol registry: `instanceof` holds for an error made by
// another copy of the runtime, e.g. the client a caller handed to a bundle that carries its own copy.
const API_ERROR = Symbol.for('@opkit/controller-runtime/ApiError');
const CONNECTION_ERROR = Symbol.for('@opkit/controller-runtime/ConnectionError');

function branded(value: unknown, brand: symbol): boolean {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[brand] === true;
}

/**
 * Makes `instanceof base` recognise `base`'s instances by `brand`, so that the errors a client raises to its
 * caller, which may hold another copy of the runtime, still match; subclasses are matched by prototype, as usual.
 */
export function recogniseByBrand(base: abstract new (...args: never[]) => object, brand: symbol): void {
  Object.defineProperty(base, Symbol.hasInstance, {
    value(this: object, value: unknown): boolean {
      return this === base ? branded(value, brand) : Function.prototype[Symbol.hasInstance].call(this, value);
    },
  });
}

/** A Kubernetes API error: the HTTP status and the `Status` object's reason and message. */
export class ApiError extends Error {
  readonly [API_ERROR] = true;
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
recogniseByBrand(ApiError, API_ERROR);

/** The API server could not be reached (connection refused or reset, timeout). */
export class ConnectionError extends Error {
  readonly [CONNECTION_ERROR] = true;
  readonly code = 'KUBE_CONNECTION_ERROR';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ConnectionError';
  }
}
recogniseByBrand(ConnectionError, CONNECTION_ERROR);

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
 * Statuses a healthy API server answers while it starts, is overloaded or restarts behind a load balancer:
 * 429 (priority and fairness), 500, 502, 503 ("the server is currently unable to handle the request"), 504.
 */
const TRANSIENT_STATUSES = new Set([429, 500, 502, 503, 504]);

/** Network failures that last as long as a restart: refused, reset, cut or timed-out connections, DNS retries. */
const TRANSIENT_NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  'ERR_STREAM_PREMATURE_CLOSE',
  'UND_ERR_SOCKET',
]);

function networkCodeIn(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && TRANSIENT_NETWORK_CODES.has(code)) return code;
  }
  return undefined;
}

/**
 * Whether retrying the same call later can succeed without anyone changing anything: the API server answered
 * 429, 500, 502, 503 or 504, or could not be reached (connection refused or reset, timeout). Everything else —
 * 401 and 403, a kind the server does not serve, an invalid kubeconfig, a certificate that does not verify —
 * stays wrong until someone fixes it.
 */
export function isTransient(error: unknown): boolean {
  const api = apiErrorIn(error);
  if (api) return TRANSIENT_STATUSES.has(api.status);
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e instanceof ConnectionError) return networkCodeIn(e.cause) !== undefined;
  }
  return false;
}

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
