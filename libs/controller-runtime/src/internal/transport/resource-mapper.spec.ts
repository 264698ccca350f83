import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { statusReply, TestingApiServer } from '../../testing/api-server.js';
import { Backoff } from '../retry/backoff.js';
import type { RetryTransientOptions } from '../retry/transient-retry.js';
import { NoKindMatchError, ResourceMapper } from './resource-mapper.js';
import { Transport } from './transport.js';

let server: TestingApiServer;
let transport: Transport;
const stop = new AbortController();
const discoveries = () => server.requests.filter((r) => r.path === '/api/v1').length;

beforeEach(async () => {
  server = await TestingApiServer.start();
  transport = new Transport(server.kubeConfig());
});

afterEach(async () => {
  await transport.close();
  await server.close();
});

/** A mapper that retries as the manager's does while it runs, with a short back-off. */
function retryingMapper(retries: string[]): ResourceMapper {
  const retry: RetryTransientOptions = {
    signal: stop.signal,
    backoff: new Backoff({ initialMs: 1, maxMs: 4 }),
    onRetry: (f) => retries.push(`${f.operation}: ${f.error.message}`),
  };
  return new ResourceMapper(transport, () => retry);
}

describe('ResourceMapper discovery', () => {
  it('GIVEN no retry THEN a 503 fails the mapping, as for a reconcile outside a running manager', async () => {
    server.reply('discovery', statusReply(503, 'ServiceUnavailable'));

    await expect(new ResourceMapper(transport).mapping('v1', 'ConfigMap')).rejects.toThrow(
      '503 ServiceUnavailable',
    );
  });

  it('GIVEN retries THEN 503 and 429 are waited out and the mapping is found', async () => {
    server.reply('discovery', statusReply(503, 'ServiceUnavailable'));
    server.reply('discovery', statusReply(429, 'TooManyRequests'));
    const retries: string[] = [];

    await expect(retryingMapper(retries).mapping('v1', 'ConfigMap')).resolves.toMatchObject({
      resource: 'configmaps',
    });
    expect(discoveries()).toBe(3);
    expect(retries).toEqual([
      'discovery of ConfigMap (v1): GET /api/v1: 503 ServiceUnavailable: fake ServiceUnavailable',
      'discovery of ConfigMap (v1): GET /api/v1: 429 TooManyRequests: fake TooManyRequests',
    ]);
  });

  it('GIVEN retries THEN a 403 and a kind that is not served still fail at once', async () => {
    server.reply('discovery', statusReply(403, 'Forbidden'));
    const retries: string[] = [];
    const mapper = retryingMapper(retries);

    await expect(mapper.mapping('v1', 'ConfigMap')).rejects.toThrow('403 Forbidden');
    await expect(mapper.mapping('v1', 'NoSuchKind')).rejects.toBeInstanceOf(NoKindMatchError);
    expect(retries).toEqual([]);
  });
});
