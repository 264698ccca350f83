import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** Why a request is refused: an HTTP status and a one-line reason. */
export interface Refusal {
  readonly status: 401 | 403 | 500;
  readonly reason: string;
}

/** What a filter decides on. The server computes `path` once, and serves exactly that path if the filter lets it. */
export interface FilteredRequest {
  readonly method: string;
  /** Decoded, without dot or empty segments: the path the server routes (never the raw request target). */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
}

/** Decides whether a request may be served; `undefined` lets it through. */
export type RequestFilter = (request: FilteredRequest) => Promise<Refusal | undefined>;

/** What the filter needs of the API server: one JSON request (the manager's transport is one). */
export interface ReviewClient {
  request<T>(spec: {
    readonly method: 'POST';
    readonly path: string;
    readonly body: unknown;
    readonly timeoutMs: number;
  }): Promise<T>;
}

interface UserInfo {
  readonly username?: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

interface TokenReview {
  readonly status?: { readonly authenticated?: boolean; readonly user?: UserInfo; readonly error?: string };
}

interface SubjectAccessReview {
  readonly status?: { readonly allowed?: boolean; readonly denied?: boolean; readonly reason?: string };
}

/**
 * How long answers are reused and how long a review may take, as controller-runtime's metrics filter configures
 * the delegating authenticator (cache 1 min for accepted and refused tokens alike, review timeout 10 s) and
 * authorizer (allowed 5 min, denied 30 s, timeout 10 s). A revoked token keeps access at most a minute.
 */
const TOKEN_TTL_MS = 60_000;
const ALLOWED_TTL_MS = 300_000;
const DENIED_TTL_MS = 30_000;
const REVIEW_TIMEOUT_MS = 10_000;
const MAX_CACHED = 1024;

/** A small map whose entries expire, and whose oldest entries go first when it is full. */
class ExpiringCache<V> {
  readonly #entries = new Map<string, { value: V; expires: number }>();

  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expires > Date.now()) return entry.value;
    this.#entries.delete(key);
    return undefined;
  }

  set(key: string, value: V, ttlMs: number): void {
    this.#entries.delete(key);
    this.#entries.set(key, { value, expires: Date.now() + ttlMs });
    if (this.#entries.size > MAX_CACHED) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }
}

/** HTTP methods as authorization verbs, as the API server maps them for non-resource URLs. */
const VERBS: Readonly<Record<string, string>> = {
  GET: 'get',
  HEAD: 'get',
  POST: 'post',
  PUT: 'put',
  PATCH: 'patch',
  DELETE: 'delete',
};

/**
 * Authentication and authorization of the caller through the API server, as controller-runtime's
 * `filters.WithAuthenticationAndAuthorization` does for secure metrics: the bearer token is checked with a
 * TokenReview, and the user is then asked a SubjectAccessReview for the request's path and verb
 * (`get /metrics`: grant it with a ClusterRole of `nonResourceURLs: ["/metrics"]`). The path is the one the
 * server routes, never the raw request target. Answers are cached (tokens by hash, never kept in clear;
 * decisions by the whole user: name, uid, groups and extra). Needs `create` on `tokenreviews` and
 * `subjectaccessreviews`.
 */
export function authenticationAndAuthorization(transport: ReviewClient): RequestFilter {
  const users = new ExpiringCache<UserInfo | 'rejected'>();
  const decisions = new ExpiringCache<{ readonly refusal?: Refusal }>();
  return async ({ method, path, headers }) => {
    const header = headers.authorization ?? '';
    const token = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
    if (!token) return { status: 401, reason: 'Unauthorized: a bearer token is required' };
    const tokenKey = createHash('sha256').update(token).digest('hex');
    let user = users.get(tokenKey);
    if (!user) {
      let review: TokenReview;
      try {
        review = await transport.request<TokenReview>({
          method: 'POST',
          path: '/apis/authentication.k8s.io/v1/tokenreviews',
          body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
          timeoutMs: REVIEW_TIMEOUT_MS,
        });
      } catch (error) {
        return { status: 500, reason: `Internal Server Error: token review failed: ${message(error)}` };
      }
      user = (review.status?.authenticated && review.status.user) || 'rejected';
      users.set(tokenKey, user, TOKEN_TTL_MS);
    }
    if (user === 'rejected') return { status: 401, reason: 'Unauthorized: the token was not accepted' };
    const verb = VERBS[method] ?? method.toLowerCase();
    const decisionKey = JSON.stringify([
      user.username,
      user.uid,
      user.groups,
      sortedExtra(user.extra),
      path,
      verb,
    ]);
    const cached = decisions.get(decisionKey);
    if (cached) return cached.refusal;
    let review: SubjectAccessReview;
    try {
      review = await transport.request<SubjectAccessReview>({
        method: 'POST',
        path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: {
            user: user.username,
            uid: user.uid,
            groups: user.groups,
            extra: user.extra,
            nonResourceAttributes: { path, verb },
          },
        },
        timeoutMs: REVIEW_TIMEOUT_MS,
      });
    } catch (error) {
      return { status: 500, reason: `Internal Server Error: access review failed: ${message(error)}` };
    }
    if (review.status?.allowed) {
      decisions.set(decisionKey, {}, ALLOWED_TTL_MS);
      return undefined;
    }
    const refusal: Refusal = {
      status: 403,
      reason: `Forbidden: user "${user.username ?? ''}" may not ${verb} ${path}${review.status?.reason ? `: ${review.status.reason}` : ''}`,
    };
    decisions.set(decisionKey, { refusal }, DENIED_TTL_MS);
    return refusal;
  };
}

/** `extra` in key order, so that two spellings of the same user share their cached decisions. */
function sortedExtra(extra: UserInfo['extra']): [string, readonly string[]][] {
  return Object.entries(extra ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
