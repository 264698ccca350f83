import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeGoBase64, isCanonicalBase64 } from './go-base64.js';

// A fixed seed keeps `npm test` reproducible; FUZZ_RUNS=100000 searches longer on demand.
const params = { seed: 20261127, numRuns: Number(process.env.FUZZ_RUNS ?? 500) };

type Outcome = { bytes: string } | { error: true };
const outcome = (text: string): Outcome => {
  try {
    return { bytes: Buffer.from(decodeGoBase64(text)).toString('hex') };
  } catch {
    return { error: true };
  }
};

describe('decodeGoBase64', () => {
  it('decodes what Go encodes, with or without line breaks', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.nat({ max: 300 }), (bytes, at) => {
        const text = Buffer.from(bytes).toString('base64');
        const broken = `${text.slice(0, at)}\r\n${text.slice(at)}`;
        expect(Buffer.from(decodeGoBase64(text))).toEqual(Buffer.from(bytes));
        expect(Buffer.from(decodeGoBase64(broken))).toEqual(Buffer.from(bytes));
      }),
      params,
    );
  });

  it('accepts and refuses text as Go does, whether or not the fast path takes it', () => {
    // A leading line break sends any text down Go's quantum-by-quantum loop; Go skips it, so the outcome must be
    // the same as for the text alone, which canonical text decodes on the fast path.
    // Pieces that make whole and broken quanta, so padding in every position is tried often.
    const piece = fc.constantFrom(
      'QUJD',
      'QQ==',
      'QUI=',
      'QUJ',
      'A===',
      '====',
      '=',
      'A',
      '+/',
      '\n',
      '\r',
      '*',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), (chars) => {
        const text = chars.join('');
        expect(outcome(text)).toEqual(outcome(`\n${text}`));
      }),
      params,
    );
  });

  it('reports the offset Go reports', () => {
    expect(() => decodeGoBase64('aGVsbG8')).toThrow('illegal base64 data at input byte 4');
    expect(() => decodeGoBase64('aG=sbG8=')).toThrow('illegal base64 data at input byte 2');
    expect(() => decodeGoBase64('aGVs*G8=')).toThrow('illegal base64 data at input byte 4');
  });

  it('calls text canonical exactly when it decodes without error and encodes back to itself', () => {
    const piece = fc.constantFrom(
      'QUJD',
      'QQ==',
      'QR==',
      'QUI=',
      'QUJ=',
      'QUJ',
      'A',
      '=',
      '==',
      '+/',
      '\n',
      '*',
      'é',
    );
    const roundTrips = (text: string): boolean => {
      try {
        return Buffer.from(decodeGoBase64(text)).toString('base64') === text;
      } catch {
        return false;
      }
    };
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), (pieces) => {
        const text = pieces.join('');
        expect(isCanonicalBase64(text)).toBe(roundTrips(text));
      }),
      params,
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        expect(isCanonicalBase64(Buffer.from(bytes).toString('base64'))).toBe(true);
      }),
      params,
    );
  });
});
