const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

/**
 * Kubernetes version order, lowest first, as apimachinery's `CompareKubeAwareVersionStrings` sorts them
 * (crdify pairs served versions by it): names that are not Kubernetes versions first (reverse byte order),
 * then alpha, beta and GA versions, each by major then minor number: `foo`, `v1alpha1`, `v2alpha1`, `v1beta1`,
 * `v1`, `v2`.
 */
export function compareKubeVersions(a: string, b: string): number {
  if (a === b) return 0;
  const ma = KUBE_VERSION.exec(a);
  const mb = KUBE_VERSION.exec(b);
  if (ma === null && mb === null) return a < b ? 1 : -1;
  if (ma === null) return -1;
  if (mb === null) return 1;
  const level = (m: RegExpExecArray) => (m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0);
  return level(ma) - level(mb) || Number(ma[1]) - Number(mb[1]) || Number(ma[3] ?? 0) - Number(mb[3] ?? 0);
}
