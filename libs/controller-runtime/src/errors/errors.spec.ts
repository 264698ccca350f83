import { describe, expect, it } from 'vitest';
import { FinalizerRemoveError } from '../finalizer/index.js';
import { ApiError, isAlreadyExists, isConflict, isNotFound } from './errors.js';

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
