import { connect } from 'node:net';
import { posix } from 'node:path';
import fc from 'fast-check';
import { Gauge, Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticationAndAuthorization, type ReviewClient } from '../../metrics/auth-filter.js';
import type { RequestSpec } from '../transport/transport.js';
import { ProbeServer } from './probe-server.js';

// The server serves exactly the path its filter authorized: random request targets, sent byte for byte over a
// socket to the real server on loopback, with the real filter asking a recording API server.

/** What authenticated users may get on any cluster (the `system:discovery` ClusterRole), and metrics for readers. */
const DISCOVERY = ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/healthz/*', '/readyz', '/version'];

function allowed(user: string, path: string): boolean {
  if (path === '/metrics') return user.startsWith('reader-');
  return DISCOVERY.some((rule) => (rule.endsWith('*') ? path.startsWith(rule.slice(0, -1)) : path === rule));
}

interface Review {
  readonly user: string;
  readonly path: string;
  readonly verb: string;
}

/** Accepts token `<name>` as user `<name>`, allows by {@link allowed}, and records every access review. */
function recordingApi(): { client: ReviewClient; reviews: Review[]; tokenReviews: string[] } {
  const reviews: Review[] = [];
  const tokenReviews: string[] = [];
  const client: ReviewClient = {
    request: async <T>(spec: RequestSpec): Promise<T> => {
      const body = spec.body as {
        spec: { token?: string; user?: string; nonResourceAttributes?: { path: string; verb: string } };
      };
      if (spec.path.endsWith('/tokenreviews')) {
        const token = body.spec.token ?? '';
        tokenReviews.push(token);
        return { status: { authenticated: true, user: { username: token } } } as T; // the filter's shape
      }
      const { user = '', nonResourceAttributes: attributes = { path: '', verb: '' } } = body.spec;
      reviews.push({ user, ...attributes });
      return { status: { allowed: allowed(user, attributes.path) } } as T; // the filter's shape
    },
  };
  return { client, reviews, tokenReviews };
}

/** Sends `target` as is (no client normalises it) and returns the status and `Location`. */
function rawGet(port: number, target: string, token: string): Promise<{ status: number; location?: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let response = '';
    socket.setTimeout(5_000, () => socket.destroy(new Error(`no answer to ${target}`)));
    socket.on('data', (chunk: Buffer) => {
      response += chunk.toString('latin1');
    });
    socket.on('error', reject);
    socket.on('end', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0);
      const location = /\r\nlocation: ([^\r]*)\r\n/i.exec(response)?.[1];
      resolve({ status, ...(location === undefined ? {} : { location }) });
    });
    socket.end(
      Buffer.from(
        `GET ${target} HTTP/1.1\r\nHost: metrics\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
        'latin1',
      ),
    );
  });
}

/**
 * The path a target names, worked out independently of the server: percent-decoded, then dot segments and
 * empty segments resolved as POSIX paths are; `undefined` when it cannot be decoded unambiguously.
 */
function namedPath(target: string): string | undefined {
  const raw = target.split('?')[0] ?? '';
  if (raw.startsWith('//') || /%2f/i.test(raw)) return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return undefined;
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(decoded)) return undefined;
  return posix.normalize(decoded);
}

const SEGMENTS = [
  '',
  '.',
  '..',
  '%2e',
  '%2E',
  '%2e%2e',
  '.%2E',
  '%2e.',
  'api',
  'apis',
  'v1',
  'metrics',
  'me%74rics',
  '%6Detrics',
  'healthz',
  'readyz',
  'ping',
  'a',
  '%2f',
  '%2F..%2F',
  '%5C',
  '%',
  '%zz',
  '%00',
  '%C3%A9',
  '%c3%a9',
  '%FF',
  'x%20y',
  '~',
  '@',
];
const QUERIES = ['', 'verbose', 'x=/../metrics', 'a=%2e%2e/metrics', 'a=b&c', '?', '/..'];

const target = fc
  .tuple(
    fc.array(fc.constantFrom(...SEGMENTS), { minLength: 1, maxLength: 6 }),
    fc.option(fc.constantFrom(...QUERIES), { nil: undefined }),
  )
  .map(([segments, query]) => `/${segments.join('/')}${query === undefined ? '' : `?${query}`}`);

describe('a filtered ProbeServer', () => {
  let server: ProbeServer;
  let port: number;
  const api = recordingApi();
  /** What the server did for the request being sent: collected metrics, ran a named check. */
  const served: string[] = [];

  beforeAll(async () => {
    const registry = new Registry();
    new Gauge({
      name: 'probe_test_collections',
      help: 'collected when /metrics is served',
      registers: [registry],
      collect: () => {
        served.push('/metrics');
      },
    });
    const check = (name: string) => () => {
      served.push(name);
    };
    server = new ProbeServer({
      registry,
      healthz: new Map([
        ['ping', check('healthz/ping')],
        ['a', check('healthz/a')],
      ]),
      readyz: new Map([['ping', check('readyz/ping')]]),
      filter: authenticationAndAuthorization(api.client),
    });
    port = (await server.listen({ host: '127.0.0.1', port: 0 })).port;
  });
  afterAll(() => server.close());

  let users = 0;
  /** Sends `target` as a new user (so no cached decision answers for it); what was reviewed and what served. */
  async function send(target: string, reader: boolean) {
    const user = `${reader ? 'reader' : 'stranger'}-${++users}`;
    served.length = 0;
    const answer = await rawGet(port, target, user);
    const reviews = api.reviews.filter((r) => r.user === user);
    const authenticated = api.tokenReviews.includes(user);
    return { ...answer, user, reviews, authenticated, served: [...served] };
  }

  it.each([
    '/apis/../metrics',
    '/api/%2e%2e/metrics',
    '/api/%2E%2E/metrics',
    '/api/.%2e/metrics',
    '/apis//../metrics',
    '/healthz/../metrics',
    '/api%2F..%2Fmetrics',
  ])('serves %s, sent raw, to no user that may not get /metrics', async (raw) => {
    const answer = await send(raw, false);
    expect(answer.served).toEqual([]);
    expect(answer.reviews).toEqual([]);
    expect(answer.authenticated).toBe(false);
    if (answer.status === 301) {
      expect(answer.location).toBe('/metrics');
      const followed = await send(answer.location ?? '', false);
      expect(followed).toMatchObject({ status: 403, served: [] });
      expect(followed.reviews).toEqual([{ user: followed.user, path: '/metrics', verb: 'get' }]);
    } else {
      expect(answer.status).toBe(400);
    }
  });

  it('authorizes exactly the path it serves, for any target (seeded, 500 by default)', async () => {
    const seed = Number(process.env.OPKIT_PROPERTY_SEED ?? 20261123);
    const numRuns = Number(process.env.OPKIT_PROPERTY_CASES ?? 500);
    const outcomes = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(target, fc.boolean(), async (raw, reader) => {
        const answer = await send(raw, reader);
        outcomes.set(answer.status, (outcomes.get(answer.status) ?? 0) + 1);
        const named = namedPath(raw);
        if (answer.status === 400) {
          // Refused before anyone is asked, and only what cannot be decoded unambiguously.
          expect(named).toBeUndefined();
          expect(answer).toMatchObject({ reviews: [], served: [], authenticated: false });
          return;
        }
        expect(named, 'a target that names a path is served or redirected').toBeDefined();
        if (answer.status === 301) {
          // Redirected before authentication, to the path the target names, which is then served as is.
          expect(answer).toMatchObject({ reviews: [], served: [], authenticated: false });
          const location = answer.location ?? '';
          expect(namedPath(location)).toBe(named);
          const followed = await send(location, reader);
          expect(followed.status).not.toBe(301);
          expect(followed.reviews.map((r) => r.path)).toEqual([named]);
          expectServedOnlyWhatWasAuthorized(followed);
          return;
        }
        // Served in place: asked about once, about the path the target names, and nothing else was served.
        expect(answer.reviews).toEqual([{ user: answer.user, path: named, verb: 'get' }]);
        expectServedOnlyWhatWasAuthorized(answer);
      }),
      { seed, numRuns },
    );
    // The generator reaches every outcome (otherwise the property says little).
    for (const status of [200, 301, 400, 403, 404])
      expect(outcomes.get(status), `${status}`).toBeGreaterThan(0);
  });
});

/** Whatever the server did belongs to the one path it was allowed to serve. */
function expectServedOnlyWhatWasAuthorized(answer: {
  user: string;
  status: number;
  reviews: readonly Review[];
  served: readonly string[];
}): void {
  const [review] = answer.reviews;
  if (!review || !allowed(answer.user, review.path)) {
    expect(answer.served).toEqual([]);
    expect(answer.status).toBe(403);
    return;
  }
  const [, group = '', name] = review.path.split('/');
  for (const what of answer.served) {
    if (what === '/metrics') expect(review.path).toBe('/metrics');
    else {
      const [checkGroup, check] = what.split('/');
      expect(checkGroup).toBe(group);
      if (name) expect(check).toBe(name);
    }
  }
  if (review.path === '/metrics') expect(answer.served).toEqual(['/metrics']);
}
