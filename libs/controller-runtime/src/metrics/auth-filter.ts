import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Transport } from '../client/transport.js';

/** Why a request is refused: an HTTP status and a one-line reason. */
export interface Refusal {
  readonly status: 401 | 403 | 500;
  readonly reason: string;
}

/** Decides whether a request may be served; `undefined` lets it through. */
export type RequestFilter = (req: IncomingMessage) => Promise<Refusal | undefined>;

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

/** How long answers are reused, as controller-runtime's delegating authenticator and authorizer do. */
const AUTHENTICATED_TTL_MS = 120_000;
const ALLOWED_TTL_MS = 300_000;
const DENIED_TTL_MS = 30_000;
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
 * (`get /metrics`: grant it with a ClusterRole of `nonResourceURLs: ["/metrics"]`). Answers are cached (tokens
 * by hash, never kept in clear). Needs `create` on `tokenreviews` and `subjectaccessreviews`.
 */
export function authenticationAndAuthorization(transport: Transport): RequestFilter {
  const users = new ExpiringCache<UserInfo>();
  const decisions = new ExpiringCache<{ readonly refusal?: Refusal }>();
  return async (req) => {
    const header = req.headers.authorization ?? '';
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
        });
      } catch (error) {
        return { status: 500, reason: `Internal Server Error: token review failed: ${message(error)}` };
      }
      if (!review.status?.authenticated || !review.status.user) {
        return { status: 401, reason: 'Unauthorized: the token was not accepted' };
      }
      user = review.status.user;
      users.set(tokenKey, user, AUTHENTICATED_TTL_MS);
    }
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const verb = VERBS[req.method ?? 'GET'] ?? (req.method ?? 'get').toLowerCase();
    const decisionKey = JSON.stringify([user.username, user.uid, user.groups, path, verb]);
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

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
