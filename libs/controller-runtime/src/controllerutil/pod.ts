/** Whether a pod's `Ready` condition is true. */
export function isPodReady(pod: {
  readonly status?: { readonly conditions?: readonly { type: string; status: string }[] };
}): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}
