// JSON documents helpers for FakeClient: equality, RFC 7386 merge patch, RFC 6902 JSON patch, apply merge.

type JsonObject = Record<string, unknown>;

/** A patch the API server would reject: 400 BadRequest when malformed, 422 Invalid when it cannot apply. */
export class PatchError extends Error {
  readonly status: 400 | 422;
  constructor(status: 400 | 422, message: string) {
    super(message);
    this.name = 'PatchError';
    this.status = status;
  }
}

export function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Deep equality of JSON values; key order does not matter. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a).filter((k) => a[k] !== undefined);
    const otherKeys = Object.keys(b).filter((k) => b[k] !== undefined);
    return keys.length === otherKeys.length && keys.every((k) => deepEqual(a[k], b[k]));
  }
  return false;
}

/** RFC 7386 JSON merge patch: objects merge recursively, `null` deletes, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return structuredClone(patch);
  const result: JsonObject = isPlainObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

/**
 * The simplified server-side apply merge of FakeClient: objects merge recursively, arrays and scalars in
 * `config` replace those of `live`, and `null` or absent fields in `config` leave `live` as it is.
 */
export function applyMerge(live: unknown, config: unknown): unknown {
  if (!isPlainObject(config)) return structuredClone(config);
  const result: JsonObject = isPlainObject(live) ? { ...live } : {};
  for (const [key, value] of Object.entries(config)) {
    if (value === null || value === undefined) continue;
    result[key] = applyMerge(result[key], value);
  }
  return result;
}

interface Operation {
  readonly op: string;
  readonly path: string;
  readonly from?: string;
  readonly value?: unknown;
}

function parseOperations(patch: unknown): Operation[] {
  if (!Array.isArray(patch))
    throw new PatchError(400, 'json patch: the patch must be an array of operations');
  return patch.map((op: unknown, i) => {
    if (!isPlainObject(op) || typeof op.op !== 'string' || typeof op.path !== 'string') {
      throw new PatchError(400, `json patch: operation ${i} needs string "op" and "path"`);
    }
    if ((op.op === 'move' || op.op === 'copy') && typeof op.from !== 'string') {
      throw new PatchError(400, `json patch: operation ${i} (${op.op}) needs a string "from"`);
    }
    if ((op.op === 'add' || op.op === 'replace' || op.op === 'test') && !('value' in op)) {
      throw new PatchError(400, `json patch: operation ${i} (${op.op}) needs a "value"`);
    }
    return op as unknown as Operation;
  });
}

/** RFC 6901 JSON pointer → reference tokens. */
function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new PatchError(400, `json patch: invalid path "${pointer}"`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function arrayIndex(token: string, length: number, pointer: string): number {
  if (!/^(0|[1-9][0-9]*)$/.test(token) || Number(token) >= length) {
    throw new PatchError(422, `json patch: no array element at "${pointer}"`);
  }
  return Number(token);
}

function valueAt(doc: unknown, tokens: readonly string[], pointer: string): unknown {
  let current = doc;
  for (const token of tokens) {
    if (Array.isArray(current)) current = current[arrayIndex(token, current.length, pointer)];
    else if (isPlainObject(current) && Object.hasOwn(current, token)) current = current[token];
    else throw new PatchError(422, `json patch: path "${pointer}" does not exist`);
  }
  return current;
}

function parentOf(
  doc: unknown,
  tokens: readonly string[],
  pointer: string,
): { parent: unknown; last: string } {
  return { parent: valueAt(doc, tokens.slice(0, -1), pointer), last: tokens[tokens.length - 1]! };
}

function add(doc: unknown, pointer: string, value: unknown): unknown {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) return value;
  const { parent, last } = parentOf(doc, tokens, pointer);
  if (Array.isArray(parent)) {
    const index = last === '-' ? parent.length : arrayIndex(last, parent.length + 1, pointer);
    parent.splice(index, 0, value);
  } else if (isPlainObject(parent)) {
    parent[last] = value;
  } else {
    throw new PatchError(422, `json patch: cannot add at "${pointer}": the parent is not an object or array`);
  }
  return doc;
}

function remove(doc: unknown, pointer: string): { doc: unknown; removed: unknown } {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) throw new PatchError(422, 'json patch: cannot remove the whole document');
  const { parent, last } = parentOf(doc, tokens, pointer);
  if (Array.isArray(parent)) {
    const [removed] = parent.splice(arrayIndex(last, parent.length, pointer), 1);
    return { doc, removed };
  }
  if (isPlainObject(parent) && Object.hasOwn(parent, last)) {
    const removed = parent[last];
    delete parent[last];
    return { doc, removed };
  }
  throw new PatchError(422, `json patch: path "${pointer}" does not exist`);
}

/**
 * RFC 6902 JSON patch (add, remove, replace, move, copy, test) applied to a copy of `doc`.
 *
 * @throws PatchError 400 for a malformed patch, 422 when an operation cannot apply or a `test` fails.
 */
export function jsonPatch(doc: unknown, patch: unknown): unknown {
  let result = structuredClone(doc);
  for (const op of parseOperations(patch)) {
    const value = structuredClone(op.value);
    switch (op.op) {
      case 'add':
        result = add(result, op.path, value);
        break;
      case 'remove':
        result = remove(result, op.path).doc;
        break;
      case 'replace':
        valueAt(result, parsePointer(op.path), op.path);
        result =
          parsePointer(op.path).length === 0 ? value : add(remove(result, op.path).doc, op.path, value);
        break;
      case 'move': {
        const from = op.from!;
        if (op.path.startsWith(`${from}/`)) {
          throw new PatchError(422, `json patch: cannot move "${from}" into its own child "${op.path}"`);
        }
        const { doc, removed } = remove(result, from);
        result = add(doc, op.path, removed);
        break;
      }
      case 'copy': {
        const from = op.from!;
        result = add(result, op.path, structuredClone(valueAt(result, parsePointer(from), from)));
        break;
      }
      case 'test':
        if (!deepEqual(valueAt(result, parsePointer(op.path), op.path), value)) {
          throw new PatchError(422, `json patch: test failed at "${op.path}"`);
        }
        break;
      default:
        throw new PatchError(400, `json patch: unknown operation "${op.op}"`);
    }
  }
  return result;
}
