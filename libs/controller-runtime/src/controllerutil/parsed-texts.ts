/**
 * `parse`, remembering its result for each text: operators compare and convert the same few quantities and
 * field keys on every reconcile. At most `maxEntries` results are kept (all dropped at once when full), and
 * texts longer than `maxLength` are parsed each time, so what objects carry cannot grow it without bound.
 */
export function rememberParsed<T>(
  parse: (text: string) => T,
  { maxEntries = 4096, maxLength }: { readonly maxEntries?: number; readonly maxLength: number },
): (text: string) => T {
  const results = new Map<string, T>();
  return (text) => {
    if (text.length > maxLength) return parse(text);
    if (results.has(text)) return results.get(text) as T;
    const result = parse(text);
    if (results.size >= maxEntries) results.clear();
    results.set(text, result);
    return result;
  };
}
