import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { copyJson } from './json-copy.js';

describe('copyJson', () => {
  it('copies any JSON value into an equal value that shares no object with it', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const copy = copyJson(value);
        expect(JSON.stringify(copy)).toBe(JSON.stringify(value));
        expect(copy).toStrictEqual(structuredClone(value));
        const shared = (a: unknown, b: unknown): boolean =>
          a !== null &&
          typeof a === 'object' &&
          (a === b || Object.keys(a).some((k) => shared((a as never)[k], (b as never)[k])));
        expect(shared(copy, value)).toBe(false);
      }),
    );
  });

  it('keeps a "__proto__" key as data, as JSON.parse does, without changing the prototype', () => {
    const decoded = JSON.parse('{"metadata":{"__proto__":{"polluted":true},"name":"a"}}');
    const copy = copyJson(decoded);
    expect(Object.getPrototypeOf(copy.metadata)).toBe(Object.prototype);
    expect(Object.keys(copy.metadata)).toEqual(['__proto__', 'name']);
    expect(JSON.stringify(copy)).toBe(JSON.stringify(decoded));
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });
});
