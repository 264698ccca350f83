/** A JSON object: not null, not an array (decoded Kubernetes data has no other objects). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
