/**
 * Kubernetes resource quantities (`resource.Quantity`): the API server stores them in canonical form, so `1024Mi`
 * comes back as `1Gi`, `0.5` as `500m` and the number `2` as `"2"`. Comparing them as text would make a
 * controller write again on every reconcile; they are compared by value.
 */

import { rememberParsed } from './parsed-texts.js';

/** An exact quantity value: `mantissa × 10^exp10 × 2^exp2`. */
interface QuantityValue {
  readonly mantissa: bigint;
  readonly exp10: number;
  readonly exp2: number;
}

const QUANTITY = /^([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:([KMGTPE]i)|([numkMGTPE])|[eE]([+-]?[0-9]+))?$/;
const BINARY: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL: Readonly<Record<string, number>> = {
  n: -9,
  u: -6,
  m: -3,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
/** Exponents beyond this are not compared by value (Kubernetes caps quantities far below it anyway). */
const MAX_EXPONENT = 64;
/** Each quantity text parsed once (texts over 64 characters are not kept): the same few recur on every pass. */
const parseText = rememberParsed(parse, { maxLength: 64 });

/** The exact value of a quantity, or `undefined` when `input` is not one. */
export function parseQuantity(input: string | number): QuantityValue | undefined {
  const text = typeof input === 'number' ? (Number.isFinite(input) ? String(input) : '') : input;
  return parseText(text);
}

function parse(text: string): QuantityValue | undefined {
  const m = QUANTITY.exec(text);
  if (!m) return undefined;
  const [, sign, number = '', binary, decimal, exponent] = m;
  const [whole = '', fraction = ''] = number.split('.');
  let exp10 = -fraction.length;
  let exp2 = 0;
  if (binary !== undefined) exp2 = BINARY[binary] ?? 0;
  else if (decimal !== undefined) exp10 += DECIMAL[decimal] ?? 0;
  else if (exponent !== undefined) exp10 += Number(exponent);
  if (Math.abs(exp10) > MAX_EXPONENT) return undefined;
  const digits = BigInt(`${whole}${fraction}` || '0');
  return { mantissa: sign === '-' ? -digits : digits, exp10, exp2 };
}

/** Whether two quantities have the same value (`1Gi` = `1024Mi` = `1073741824`, `0.5` = `500m`). */
export function quantitiesEqual(a: string | number, b: string | number): boolean {
  return a === b || compareQuantities(a, b) === 0;
}

/** -1, 0 or 1 as `a` is less than, equal to or more than `b`; undefined when either is no quantity. */
export function compareQuantities(a: string | number, b: string | number): -1 | 0 | 1 | undefined {
  const x = parseQuantity(a);
  const y = parseQuantity(b);
  if (x === undefined || y === undefined) return undefined;
  // Bring both to integers over the same power of ten, then compare.
  const lowest = Math.min(x.exp10, y.exp10);
  const scaled = (q: QuantityValue): bigint =>
    q.mantissa * 10n ** BigInt(q.exp10 - lowest) * 2n ** BigInt(q.exp2);
  const d = scaled(x) - scaled(y);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

/**
 * The smallest integer at least the quantity's value (`1.5Ki` → 1536n, `100m` → 1n), as Kubernetes'
 * `Quantity.Value()` rounds; undefined when it is no quantity.
 */
export function quantityCeil(q: string | number): bigint | undefined {
  const v = parseQuantity(q);
  if (v === undefined) return undefined;
  const numerator = v.mantissa * 2n ** BigInt(v.exp2);
  if (v.exp10 >= 0) return numerator * 10n ** BigInt(v.exp10);
  const denominator = 10n ** BigInt(-v.exp10);
  const quotient = numerator / denominator; // truncates toward zero
  return numerator > 0n && quotient * denominator !== numerator ? quotient + 1n : quotient;
}
