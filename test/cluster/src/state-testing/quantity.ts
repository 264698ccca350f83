/**
 * Resource quantities as the step generator needs them: the exact value in thousandths (so `500m`, `0.5` and
 * `1Gi` are all whole), and every spelling of one value (`1Gi`, `1024Mi`, `1073741824`, `1e9`…) that means
 * the same to the API server.
 */

const QUANTITY = /^([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:([KMGTPE]i)|([numkMGTPE])|[eE]([+-]?[0-9]+))?$/;
const BINARY = ['Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'] as const;
const DECIMAL = ['k', 'M', 'G', 'T', 'P', 'E'] as const;
const SMALL: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3 };

/** The value in thousandths of a unit, or undefined when `input` is no quantity or finer than `1m`. */
export function quantityMillis(input: string | number): bigint | undefined {
  const m = QUANTITY.exec(typeof input === 'number' ? String(input) : input);
  if (!m) return undefined;
  const [, sign, number = '', binary, decimal, exponent] = m;
  const [whole = '', fraction = ''] = number.split('.');
  let numerator = BigInt(`${whole}${fraction}` || '0') * 1000n;
  let exp10 = -fraction.length;
  if (binary) numerator *= 1024n ** BigInt(BINARY.indexOf(binary as (typeof BINARY)[number]) + 1);
  if (decimal) exp10 += SMALL[decimal] ?? 3 * (DECIMAL.indexOf(decimal as (typeof DECIMAL)[number]) + 1);
  if (exponent !== undefined) exp10 += Number(exponent);
  if (Math.abs(exp10) > 40) return undefined;
  if (exp10 >= 0) numerator *= 10n ** BigInt(exp10);
  else {
    const divisor = 10n ** BigInt(-exp10);
    if (numerator % divisor !== 0n) return undefined;
    numerator /= divisor;
  }
  return sign === '-' ? -numerator : numerator;
}

/** Whether two quantities have the same value. */
export function quantitiesEqual(a: string | number, b: string | number): boolean {
  const x = quantityMillis(a);
  return x !== undefined && x === quantityMillis(b);
}

/** The smallest whole number of `unit`s (e.g. `1Mi`) that holds the quantity: memcached's `-m 64` of `64Mi`. */
export function quantityCeilIn(input: string | number, unit: string): bigint | undefined {
  const value = quantityMillis(input);
  const size = quantityMillis(unit);
  if (value === undefined || size === undefined || size <= 0n) return undefined;
  return value <= 0n ? value / size : (value + size - 1n) / size;
}

/**
 * Every spelling of a non-negative value the generator knows: plain (string, and number when it is whole and
 * safe), binary and decimal suffixes where they divide it, exponents, milli-units and decimal fractions.
 */
export function quantitySpellings(millis: bigint): (string | number)[] {
  const spellings: (string | number)[] = [`${millis}m`];
  if (millis % 1000n !== 0n) {
    const whole = millis / 1000n;
    const fraction = (millis % 1000n).toString().padStart(3, '0').replace(/0+$/, '');
    spellings.push(`${whole}.${fraction}`);
    if (whole === 0n) spellings.push(`.${fraction}`);
    return spellings;
  }
  const units = millis / 1000n;
  spellings.push(`${units}`);
  if (units <= BigInt(Number.MAX_SAFE_INTEGER)) spellings.push(Number(units));
  if (units === 0n) return spellings;
  BINARY.forEach((suffix, i) => {
    const size = 1024n ** BigInt(i + 1);
    if (units % size === 0n) spellings.push(`${units / size}${suffix}`);
    else if ((units * 2n) % size === 0n && units > size) spellings.push(`${units / size}.5${suffix}`);
  });
  DECIMAL.forEach((suffix, i) => {
    const size = 1000n ** BigInt(i + 1);
    if (units % size === 0n) {
      spellings.push(`${units / size}${suffix}`);
      spellings.push(`${units / size}e${3 * (i + 1)}`);
    }
  });
  return spellings;
}

type ResourceList = Readonly<Record<string, string | number>> | undefined;

/**
 * Where a container's resource list differs from the spec's, comparing quantities by value (the API server
 * stores them canonical): `limits.cpu is 100m, the spec says 0.2`. Empty when they mean the same.
 */
export function resourceListDifferences(
  what: string,
  actual: ResourceList,
  expected: ResourceList,
): string[] {
  const keys = new Set([...Object.keys(actual ?? {}), ...Object.keys(expected ?? {})]);
  return [...keys]
    .filter((k) => {
      const a = actual?.[k];
      const e = expected?.[k];
      return a === undefined || e === undefined || !quantitiesEqual(a, e);
    })
    .map((k) => `${what}.${k} is ${actual?.[k]}, the spec says ${expected?.[k]}`);
}
