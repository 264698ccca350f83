import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RequestSpec } from '../internal/transport/transport.js';
import { authenticationAndAuthorization, type FilteredRequest, type ReviewClient } from './auth-filter.js';

// How long the metrics filter trusts the API server's answers, how long it waits for them, and whose answer
// it reuses for whom.

interface User {
  readonly username: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

interface AccessSpec {
  readonly user: string;
  readonly extra?: Readonly<Record<string, readonly string[]>>;
  readonly nonResourceAttributes: { readonly path: string; readonly verb: string };
}

/** An API server answering TokenReviews from `tokens` and SubjectAccessReviews with `allow`; records every request. */
function fakeApi(tokens: Map<string, User>, allow: (review: AccessSpec) => boolean) {
  const requests: RequestSpec[] = [];
  let failing: Error | undefined;
  const client: ReviewClient = {
    request: async <T>(spec: RequestSpec): Promise<T> => {
      requests.push(spec);
      if (failing) throw failing;
      const body = spec.body as { spec: { token?: string } & AccessSpec };
      const answer = spec.path.endsWith('/tokenreviews')
        ? {
            status: tokens.has(body.spec.token ?? '')
              ? { authenticated: true, user: tokens.get(body.spec.token ?? '') }
              : { authenticated: false },
          }
        : { status: { allowed: allow(body.spec) } };
      return answer as T; // the filter reads these two shapes only
    },
  };
  const count = (kind: string) => requests.filter((r) => r.path.endsWith(`/${kind}`)).length;
  return {
    client,
    requests,
    tokenReviews: () => count('tokenreviews'),
    accessReviews: () => count('subjectaccessreviews'),
    fail: (error: Error | undefined) => {
      failing = error;
    },
  };
}

const get = (token: string, path = '/metrics'): FilteredRequest => ({
  method: 'GET',
  path,
  headers: { authorization: `Bearer ${token}` },
});

describe('authenticationAndAuthorization', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
  });
  afterEach(() => vi.useRealTimers());

  it('trusts a token review for 60 s, as controller-runtime does: a revoked token loses access within a minute', async () => {
    const tokens = new Map([['scraper-token', { username: 'scraper' }]]);
    const api = fakeApi(tokens, () => true);
    const filter = authenticationAndAuthorization(api.client);
    expect(await filter(get('scraper-token'))).toBeUndefined();
    tokens.delete('scraper-token'); // revoked
    vi.advanceTimersByTime(59_000);
    expect(await filter(get('scraper-token'))).toBeUndefined();
    expect(api.tokenReviews()).toBe(1);
    vi.advanceTimersByTime(1_001);
    expect(await filter(get('scraper-token'))).toMatchObject({ status: 401 });
    expect(api.tokenReviews()).toBe(2);
  });

  it('remembers a refused token no longer than an accepted one', async () => {
    const tokens = new Map<string, User>();
    const api = fakeApi(tokens, () => true);
    const filter = authenticationAndAuthorization(api.client);
    expect(await filter(get('new-token'))).toMatchObject({ status: 401 });
    tokens.set('new-token', { username: 'late' });
    vi.advanceTimersByTime(30_000);
    expect(await filter(get('new-token'))).toMatchObject({ status: 401 });
    expect(api.tokenReviews()).toBe(1);
    vi.advanceTimersByTime(30_001);
    expect(await filter(get('new-token'))).toBeUndefined();
    expect(api.tokenReviews()).toBe(2);
  });

  it('gives each review 10 s, answers 500 when one fails, and does not remember the failure', async () => {
    const api = fakeApi(new Map([['t', { username: 'u' }]]), () => true);
    const filter = authenticationAndAuthorization(api.client);
    api.fail(new Error('no answer within 10000 ms'));
    expect(await filter(get('t'))).toEqual({
      status: 500,
      reason: 'Internal Server Error: token review failed: no answer within 10000 ms',
    });
    api.fail(undefined);
    expect(await filter(get('t'))).toBeUndefined();
    expect(api.requests.map((r) => [r.path.split('/').at(-1), r.timeoutMs])).toEqual([
      ['tokenreviews', 10_000],
      ['tokenreviews', 10_000],
      ['subjectaccessreviews', 10_000],
    ]);
  });

  it('keeps separate decisions for users that differ only in extra', async () => {
    const user = { username: 'robot', uid: '1', groups: ['system:authenticated'] };
    const api = fakeApi(
      new Map([
        ['scoped', { ...user, extra: { scopes: ['metrics'], zone: ['a'] } }],
        ['unscoped', { ...user, extra: { scopes: ['none'], zone: ['a'] } }],
        ['scoped-reordered', { ...user, extra: { zone: ['a'], scopes: ['metrics'] } }],
      ]),
      (review) => review.extra?.scopes?.includes('metrics') === true,
    );
    const filter = authenticationAndAuthorization(api.client);
    expect(await filter(get('scoped'))).toBeUndefined();
    expect(await filter(get('unscoped'))).toMatchObject({ status: 403 });
    expect(api.accessReviews()).toBe(2);
    // The same user spelled in another key order shares the decision.
    expect(await filter(get('scoped-reordered'))).toBeUndefined();
    expect(api.accessReviews()).toBe(2);
  });

  it('asks about the path it is given and the verb of the method', async () => {
    const seen: AccessSpec['nonResourceAttributes'][] = [];
    const api = fakeApi(new Map([['t', { username: 'u' }]]), (review) => {
      seen.push(review.nonResourceAttributes);
      return false;
    });
    const filter = authenticationAndAuthorization(api.client);
    expect(await filter({ ...get('t', '/metrics'), method: 'HEAD' })).toEqual({
      status: 403,
      reason: 'Forbidden: user "u" may not get /metrics',
    });
    expect(seen).toEqual([{ path: '/metrics', verb: 'get' }]);
  });
});
