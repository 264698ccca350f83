/**
 * Go's `encoding/json` folding of field names (`foldName`): ASCII letters upper-cased, any other character
 * replaced by one representative of its case-folding orbit (Go takes the orbit's smallest rune; upper case after
 * lower case picks the same one for letters) — so `K` (Kelvin sign) matches `k` and `ſ` matches `s`.
 */
export function goFoldName(name: string): string {
  let out = '';
  for (const ch of name) {
    if (ch < '\x80') {
      out += ch.toUpperCase();
      continue;
    }
    // Only simple (one-character) case mappings, as Go's unicode.ToLower/ToUpper.
    const lower = ch.toLowerCase();
    const single = [...lower].length === 1 ? lower : ch;
    const upper = single.toUpperCase();
    out += [...upper].length === 1 ? upper : single;
  }
  return out;
}

const FOLDED = new WeakMap<object, Map<string, string>>();

/**
 * The Go struct field a JSON (or YAML, through sigs.k8s.io/yaml) object key decodes into: the field of that exact
 * name, else the first whose name matches case-insensitively — `encoding/json` does this for every field of every
 * struct, which is why `Schema:` works in opm's templates. `undefined` when no field matches (an unknown key).
 */
export function goFieldName(fields: Readonly<Record<string, unknown>>, key: string): string | undefined {
  if (Object.hasOwn(fields, key)) return key;
  let folded = FOLDED.get(fields);
  if (folded === undefined) {
    folded = new Map();
    for (const field of Object.keys(fields)) {
      const fold = goFoldName(field);
      if (!folded.has(fold)) folded.set(fold, field);
    }
    FOLDED.set(fields, folded);
  }
  return folded.get(goFoldName(key));
}
