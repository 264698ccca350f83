import { describe, expect, it } from 'vitest';
import { covers } from './install.js';

describe('covers', () => {
  it("holds when the live object has every field of the desired one, and the server's defaults beside them", () => {
    const desired = { group: 'example.test', versions: [{ name: 'v1', served: true }] };
    expect(covers(desired, { ...desired, conversion: { strategy: 'None' } })).toBe(true);
    expect(
      covers(desired, { group: 'example.test', versions: [{ name: 'v1', served: true, storage: true }] }),
    ).toBe(true);
  });

  it('fails on a changed scalar, a missing field or another number of items', () => {
    const desired = { group: 'example.test', versions: [{ name: 'v1' }] };
    expect(covers(desired, { group: 'other.test', versions: [{ name: 'v1' }] })).toBe(false);
    expect(covers(desired, { group: 'example.test' })).toBe(false);
    expect(covers(desired, { group: 'example.test', versions: [{ name: 'v1' }, { name: 'v2' }] })).toBe(
      false,
    );
    expect(covers({ a: [1] }, { a: { 0: 1 } })).toBe(false);
  });
});
