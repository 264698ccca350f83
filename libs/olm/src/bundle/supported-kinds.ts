/**
 * Kinds a `registry+v1` bundle may contain (operator-registry `pkg/lib/bundle/supported_resources.go`), with
 * whether each is namespaced.
 */
export const SUPPORTED_KINDS: ReadonlyMap<string, boolean> = new Map([
  ['ClusterServiceVersion', true],
  ['CustomResourceDefinition', false],
  ['ClusterRole', false],
  ['ClusterRoleBinding', false],
  ['Service', true],
  ['ServiceAccount', true],
  ['Role', true],
  ['RoleBinding', true],
  ['PrometheusRule', true],
  ['ServiceMonitor', true],
  ['Secret', true],
  ['ConfigMap', true],
  ['PodDisruptionBudget', true],
  ['PriorityClass', false],
  ['VerticalPodAutoscaler', false],
  ['ConsoleYAMLSample', false],
  ['ConsoleQuickStart', false],
  ['ConsoleCLIDownload', false],
  ['ConsoleLink', false],
  ['ConsolePlugin', false],
  ['NetworkPolicy', true],
  ['PodMonitor', true],
]);

/** True when `kind` may be shipped in a registry+v1 bundle. */
export function isSupportedKind(kind: string): boolean {
  return SUPPORTED_KINDS.has(kind);
}
