/**
 * The namespaces an operator watches, from `WATCH_NAMESPACE` (comma-separated; empty or unset = all). This is
 * how OLM passes an OperatorGroup's `olm.targetNamespaces` to an operator, so one variable covers the
 * AllNamespaces, OwnNamespace, SingleNamespace and MultiNamespace install modes.
 */
export function watchNamespacesFromEnv(value: string | undefined = process.env.WATCH_NAMESPACE): string[] {
  return [
    ...new Set(
      (value ?? '')
        .split(',')
        .map((n) => n.trim())
        .filter(Boolean),
    ),
  ].sort();
}
