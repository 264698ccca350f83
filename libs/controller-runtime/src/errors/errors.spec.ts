import { describe, expect, it } from 'vitest';
import { FinalizerRemoveError } from '../finalizer/index.js';
import { KubeconfigError } from '../internal/transport/kubeconfig.js';
import { NoKindMatchError } from '../internal/transport/resource-mapper.js';
import { ApiError, ConnectionError, isAlreadyExists, isConflict, isNotFound, isTransient } from './errors.js';

const conflict = new ApiError(409, 'Conflict', 'the object has been modified', 'PATCH', '/x');

describe('API error predicates', () => {
  it('recognise the status and reason, also when a helper wrapped the error', () => {
    expect(isConflict(conflict)).toBe(true);
    expect(isConflict(new FinalizerRemoveError('f', { cause: conflict }))).toBe(true);
    expect(isAlreadyExists(conflict)).toBe(false);
    expect(isAlreadyExists(new ApiError(409, 'AlreadyExists', 'exists', 'POST', '/x'))).toBe(true);
    expect(
      isNotFound(new Error('plain', { cause: new ApiError(404, 'NotFound', 'gone', 'GET', '/x') })),
    ).toBe(true);
    expect(isNotFound(new Error('plain'))).toBe(false);
  });
});

describe('errors of another copy of the runtime', () => {
  it('are recognised: a bundle carrying its own copy reads the errors of the client it was handed', async () => {
    // A second instance of this module, as a bundle that inlines the runtime has (the query makes it another
    // module for vitest; a variable keeps TypeScript from resolving it).
    const copy = './errors.js?copy';
    const other = (await import(/* @vite-ignore */ copy)) as typeof import('./errors.js');
    expect(other.ApiError).not.toBe(ApiError);
    const notFound = new other.ApiError(404, 'NotFound', 'no such CRD', 'GET', '/apis/x');
    expect(notFound instanceof ApiError).toBe(true);
    expect(isNotFound(notFound)).toBe(true);
    expect(new other.ConnectionError('refused') instanceof ConnectionError).toBe(true);
    expect(new Error('plain') instanceof ApiError).toBe(false);
    expect(notFound instanceof ConnectionError).toBe(false);
    const mapper = './../internal/transport/resource-mapper.js?copy';
    const otherMapper = (await import(
      /* @vite-ignore */ mapper
    )) as typeof import('../internal/transport/resource-mapper.js');
    const noKind = new otherMapper.NoKindMatchError({
      group: 'operators.coreos.com',
      version: 'v1',
      kind: 'OperatorGroup',
    });
    expect(noKind instanceof NoKindMatchError).toBe(true);
    // A subclass keeps the usual prototype check: a plain ConnectionError is not a KubeconfigError.
    expect(new ConnectionError('refused') instanceof KubeconfigError).toBe(false);
    expect(new KubeconfigError('no such file') instanceof ConnectionError).toBe(true);
  });
});

describe('isTransient: what an API server that is starting, overloaded or restarting answers', () => {
  const api = (status: number, reason: string) =>
    new ApiError(status, reason, `${status} ${reason}`, 'GET', '/api/v1');
  const network = (code: string) =>
    new ConnectionError(`GET /api/v1: ${code}`, { cause: Object.assign(new Error(code), { code }) });

  it.each([
    [429, 'TooManyRequests'],
    [500, 'InternalError'],
    [502, ''],
    [503, 'ServiceUnavailable'],
    [504, 'Timeout'],
  ])('retries status %i', (status, reason) => {
    expect(isTransient(api(status, reason))).toBe(true);
    expect(isTransient(new Error('wrapped', { cause: api(status, reason) }))).toBe(true);
  });

  it.each(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'EAI_AGAIN'])(
    'retries a connection that failed with %s',
    (code) => expect(isTransient(network(code))).toBe(true),
  );

  it.each([
    [400, 'BadRequest'],
    [401, 'Unauthorized'],
    [403, 'Forbidden'],
    [404, 'NotFound'],
    [409, 'Conflict'],
    [410, 'Gone'],
    [422, 'Invalid'],
  ])('does not retry status %i', (status, reason) => {
    expect(isTransient(api(status, reason))).toBe(false);
  });

  it('does not retry what only a person can fix: a bad certificate, a kubeconfig, a missing kind, a plain error', () => {
    expect(isTransient(network('DEPTH_ZERO_SELF_SIGNED_CERT'))).toBe(false);
    expect(isTransient(network('ENOTFOUND'))).toBe(false);
    expect(isTransient(new KubeconfigError('no such file'))).toBe(false);
    expect(isTransient(new ConnectionError('the kubeconfig has no current cluster server'))).toBe(false);
    expect(isTransient(new NoKindMatchError({ group: 'example.com', version: 'v1', kind: 'Widget' }))).toBe(
      false,
    );
    expect(isTransient(new Error('boom'))).toBe(false);
    expect(isTransient(undefined)).toBe(false);
  });
});
