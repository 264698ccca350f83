// Field paths as the API server prints them in its field errors.
/** A child's path: `spec.size`. */
export function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** A rule's `fieldPath` (`.spec.x`, `.items['a.b']`) under the path of its node. */
export function joinFieldPath(path: string, fieldPath: string): string {
  const relative = fieldPath.replace(/\['([^']*)'\]/g, '[$1]').replace(/^\./, '');
  return path === '' ? relative : relative.startsWith('[') ? `${path}${relative}` : `${path}.${relative}`;
}

/** A path as field errors print it; the object itself is `<root>`. */
export function pathText(path: string): string {
  return path === '' ? '<root>' : path;
}
