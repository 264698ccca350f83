/**
 * A deep copy of decoded JSON (objects, arrays, strings, numbers, booleans, null). About seven times as fast
 * as `structuredClone` on a Deployment, which matters where every write's result is copied into the cache.
 * Own enumerable keys only; a `__proto__` key stays an own property, as `JSON.parse` makes it.
 */
export function copyJson<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const copy = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) copy[i] = copyJson(value[i]);
    return copy as T;
  }
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const child = copyJson((value as Record<string, unknown>)[key]);
    if (key === '__proto__') {
      Object.defineProperty(copy, key, {
        value: child,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else copy[key] = child;
  }
  return copy as T;
}
