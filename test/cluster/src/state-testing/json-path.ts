/** A JSON value as a custom resource's spec holds it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A path into a spec: property names and array indices. */
export type Path = readonly (string | number)[];

/** The path as the API server names fields in its messages: `spec.port.containerPort`, `spec.extraArgs[2]`. */
export function formatPath(path: Path): string {
  return path.reduce<string>(
    (text, segment) => (typeof segment === 'number' ? `${text}[${segment}]` : `${text}.${segment}`),
    'spec',
  );
}

export function isObject(value: unknown): value is { [key: string]: Json } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function getAt(root: Json, path: Path): Json | undefined {
  let node: Json | undefined = root;
  for (const segment of path) {
    if (typeof segment === 'number') node = Array.isArray(node) ? node[segment] : undefined;
    else node = isObject(node) ? node[segment] : undefined;
    if (node === undefined) return undefined;
  }
  return node;
}

/** A copy of `root` with the value at `path` replaced (`undefined` removes it); parents are created as objects. */
export function setAt(root: Json, path: Path, value: Json | undefined): Json {
  if (path.length === 0) return value ?? null;
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  if (typeof head === 'number') {
    const list = Array.isArray(root) ? [...root] : [];
    if (rest.length === 0 && value === undefined) list.splice(head, 1);
    else list[head] = setAt(list[head] ?? {}, rest, value);
    return list;
  }
  const object = isObject(root) ? { ...root } : {};
  if (rest.length === 0 && value === undefined) delete object[head];
  else object[head] = setAt(object[head] ?? {}, rest, value);
  return object;
}

/** Equality of JSON values, blind to the order of object keys. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]))
    );
  }
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => k in b && jsonEqual(a[k], b[k]));
}
