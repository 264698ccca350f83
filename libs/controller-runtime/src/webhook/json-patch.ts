/** One RFC 6902 operation, as admission webhooks return them (`patchType: JSONPatch`). */
export type JsonPatchOperation =
  | { readonly op: 'add' | 'replace'; readonly path: string; readonly value: unknown }
  | { readonly op: 'remove'; readonly path: string };

/** A JSON Pointer token (RFC 6901): `~` and `/` escaped. */
const token = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  }
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a).filter((k) => a[k] !== undefined);
    return (
      keys.length === Object.keys(b).filter((k) => b[k] !== undefined).length &&
      keys.every((k) => k in b && jsonEqual(a[k], b[k]))
    );
  }
  return false;
}

/**
 * The operations that turn `before` into `after`, both JSON values. Objects are compared key by key, so a
 * defaulter that sets one field yields one `add`; a changed array is replaced whole, which is always correct
 * and keeps the patch independent of how the API server merges list items.
 */
export function jsonPatch(before: unknown, after: unknown, path = ''): JsonPatchOperation[] {
  if (jsonEqual(before, after)) return [];
  if (!isRecord(before) || !isRecord(after)) return [{ op: 'replace', path, value: after }];
  const ops: JsonPatchOperation[] = [];
  for (const [key, value] of Object.entries(before)) {
    if (value !== undefined && after[key] === undefined)
      ops.push({ op: 'remove', path: `${path}/${token(key)}` });
  }
  for (const [key, value] of Object.entries(after)) {
    if (value === undefined) continue;
    const at = `${path}/${token(key)}`;
    if (before[key] === undefined) ops.push({ op: 'add', path: at, value });
    else ops.push(...jsonPatch(before[key], value, at));
  }
  return ops;
}

/** Applies operations produced by {@link jsonPatch} (add, replace, remove on objects; whole values). */
export function applyJsonPatch(doc: unknown, ops: readonly JsonPatchOperation[]): unknown {
  let root = structuredClone(doc);
  for (const op of ops) {
    if (op.path === '') {
      root = op.op === 'remove' ? undefined : structuredClone(op.value);
      continue;
    }
    const tokens = op.path
      .slice(1)
      .split('/')
      .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
    const last = tokens.pop() as string;
    let parent: unknown = root;
    for (const t of tokens) parent = (parent as Record<string, unknown>)[t];
    if (!isRecord(parent)) throw new Error(`json patch: ${op.path}: parent is not an object`);
    if (op.op === 'remove') delete parent[last];
    else parent[last] = structuredClone(op.value);
  }
  return root;
}
