import { goFloat } from './go-format.js';

/** Go's `strconv.FormatFloat(f, 'g', -1, 32)`: the shortest decimal that reads back as the same float32. */
export function goFloat32(f: number): string {
  const single = Math.fround(f);
  if (!Number.isFinite(single) || single === 0) return goFloat(single);
  for (let digits = 1; digits < 9; digits++) {
    const decimal = Number(single.toPrecision(digits));
    if (Math.fround(decimal) === single) return goFloat(decimal);
  }
  return goFloat(Number(single.toPrecision(9)));
}

/**
 * What sigs.k8s.io/yaml makes of a YAML scalar it decodes into a Go `string` (the Go tools read bundle
 * annotations into `map[string]string` or string fields this way): go-yaml resolves the scalar first, then an
 * int is printed in decimal, a float with float32 precision (`4.10` becomes `"4.1"`) and a bool as
 * `true`/`false`; strings stay as they are and null stays null (an empty string once decoded). `int` is the
 * exact value when go-yaml read the scalar as an integer (JavaScript numbers lose digits past 2^53).
 */
export function goYamlScalarString(value: unknown, int?: bigint): unknown {
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value !== 'number') return value;
  return int !== undefined ? int.toString() : goFloat32(value);
}
