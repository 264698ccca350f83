import { describe, expect, it } from 'vitest';
import { QUANTITY_PATTERN } from '../crd/schema-types.js';
import { prng } from '../testing/prng.js';
import { compareQuantities, parseQuantity, quantitiesEqual, quantityCeil } from './quantity.js';
import { isSubset } from './semantic.js';

// The API server answers quantities in canonical form; a controller that compares them as text never goes quiet.

describe('quantitiesEqual', () => {
  it('equates what the API server canonicalizes to the same quantity', () => {
    for (const [written, stored] of [
      ['1024Mi', '1Gi'],
      ['0.5', '500m'],
      ['1000m', '1'],
      ['1e3', '1k'],
      ['1.5Gi', '1536Mi'],
      [2, '2'],
      ['134217728', '128Mi'],
      ['+1', '1'],
      ['.5', '500m'],
      ['1E6', '1M'],
      ['0', '0'],
      ['0Mi', '0'],
    ] as const) {
      expect(quantitiesEqual(written, stored), `${written} = ${stored}`).toBe(true);
    }
  });

  it('tells different quantities apart', () => {
    for (const [a, b] of [
      ['1Gi', '1G'],
      ['1m', '1M'],
      ['1', '1001m'],
      ['128Mi', '128M'],
      ['-1', '1'],
      ['1Ki', '1000'],
    ] as const) {
      expect(quantitiesEqual(a, b), `${a} ≠ ${b}`).toBe(false);
    }
  });

  it('refuses what is not a quantity', () => {
    for (const text of ['', 'Gi', '1 Gi', '1gi', '1.2.3', '0x10', '1e', 'Infinity', '1e99999']) {
      expect(parseQuantity(text), JSON.stringify(text)).toBeUndefined();
    }
    expect(quantitiesEqual('abc', 'abc')).toBe(true);
    expect(quantitiesEqual('abc', 'abd')).toBe(false);
  });

  it('equates every spelling of random values, and no two different values (seeded, 2,000 by default)', () => {
    const seed = Number(process.env.OPKIT_PROPERTY_SEED ?? 20261123);
    const random = prng(seed);
    const int = (below: number) => Math.floor(random() * below);
    const cases = Number(process.env.OPKIT_PROPERTY_CASES ?? 2_000);
    for (let i = 0; i < cases; i++) {
      // n × 2^(10k) bytes, spelled in binary, plain, decimal-suffix and exponent forms.
      const n = 1 + int(4096);
      const k = int(4);
      const bytes = BigInt(n) * 1024n ** BigInt(k);
      const spellings: (string | number)[] = [
        `${n}${['', 'Ki', 'Mi', 'Gi'][k]}`,
        bytes.toString(),
        `${bytes}000m`,
        `${bytes / 1000n}${bytes % 1000n === 0n ? '' : `.${(bytes % 1000n).toString().padStart(3, '0')}`}k`,
        `${bytes}e0`,
      ];
      if (bytes <= BigInt(Number.MAX_SAFE_INTEGER)) spellings.push(Number(bytes));
      for (const a of spellings) {
        for (const b of spellings) expect(quantitiesEqual(a, b), `seed ${seed}: ${a} = ${b}`).toBe(true);
        expect(quantitiesEqual(a, `${bytes + 1n}`), `seed ${seed}: ${a} ≠ ${bytes + 1n}`).toBe(false);
      }
    }
  }, 120_000);
});

describe('the quantity schema', () => {
  it('accepts what parseQuantity reads, and more only for exponents with a fraction (seeded)', () => {
    const seed = Number(process.env.OPKIT_PROPERTY_SEED ?? 20261123);
    const random = prng(seed);
    const pattern = new RegExp(QUANTITY_PATTERN);
    const pieces = [
      '',
      '+',
      '-',
      '0',
      '1',
      '12',
      '.',
      '.5',
      '5.',
      'e',
      'E',
      'e3',
      'e-3',
      'Ki',
      'Mi',
      'ki',
      'm',
      'k',
      'K',
      'G',
      'n',
      'u',
      ' ',
      'x',
      'i',
    ];
    for (let i = 0; i < 5_000; i++) {
      const text = Array.from(
        { length: 1 + Math.floor(random() * 4) },
        () => pieces[Math.floor(random() * pieces.length)],
      ).join('');
      // The API's pattern lets an exponent have a fraction (`1e-3.`), which Kubernetes' parser, and ours, do
      // not; and exponents past ±64 are not compared by value.
      const unread = /[eE][+-]?[0-9]*\.[0-9]*$/.test(text) || /[eE][+-]?0*[0-9]{3,}/.test(text);
      expect(pattern.test(text) && !unread, `seed ${seed}: ${JSON.stringify(text)}`).toBe(
        parseQuantity(text) !== undefined,
      );
    }
  });
});

describe('isSubset', () => {
  const container = (resources: object) => ({
    spec: { template: { spec: { containers: [{ name: 'm', resources }] } } },
  });

  it('compares resource quantities by value, anywhere they are lists of resources', () => {
    const desired = container({ limits: { memory: '1024Mi', cpu: 0.5 }, requests: { memory: 134217728 } });
    const stored = container({ limits: { memory: '1Gi', cpu: '500m' }, requests: { memory: '128Mi' } });
    expect(isSubset(desired, stored)).toBe(true);
    expect(
      isSubset(desired, container({ limits: { memory: '1G', cpu: '500m' }, requests: { memory: '128Mi' } })),
    ).toBe(false);
    expect(
      isSubset(
        { spec: { volumeClaimTemplates: [{ spec: { resources: { requests: { storage: '1024Mi' } } } }] } },
        { spec: { volumeClaimTemplates: [{ spec: { resources: { requests: { storage: '1Gi' } } } }] } },
      ),
    ).toBe(true);
    expect(isSubset({ emptyDir: { sizeLimit: '1024Mi' } }, { emptyDir: { sizeLimit: '1Gi' } })).toBe(true);
  });

  it('takes an empty list of resources as none, since the API server does not store it', () => {
    expect(isSubset(container({ requests: {} }), container({}))).toBe(true);
    expect(isSubset(container({ requests: {}, limits: {} }), container({ limits: { cpu: '1' } }))).toBe(true);
    expect(isSubset(container({ requests: { cpu: '1' } }), container({}))).toBe(false);
    expect(isSubset({ emptyDir: {} }, {})).toBe(false);
  });

  it('compares every other field as written', () => {
    expect(isSubset({ data: { size: '1024Mi' } }, { data: { size: '1Gi' } })).toBe(false);
    expect(isSubset({ replicas: 2 }, { replicas: '2' })).toBe(false);
  });
});

describe('compareQuantities and quantityCeil', () => {
  it('orders quantities by value and rounds up to an integer as Quantity.Value() does', () => {
    expect(compareQuantities('1Gi', '1000Mi')).toBe(1);
    expect(compareQuantities('64Mi', 67108864)).toBe(0);
    expect(compareQuantities('500m', '1')).toBe(-1);
    expect(compareQuantities('x', '1')).toBeUndefined();
    expect(quantityCeil('1.5Ki')).toBe(1536n);
    expect(quantityCeil('100m')).toBe(1n);
    expect(quantityCeil('2')).toBe(2n);
    expect(quantityCeil('-1500m')).toBe(-1n);
    expect(quantityCeil('1e3')).toBe(1000n);
  });
});
