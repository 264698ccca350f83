import { isSupportedKind } from '../bundle/supported-kinds.js';
import { CRD_KIND, deepCopy, type Manifest } from '../manifest/manifest.js';
import type { OperatorObjects } from './operator-objects.js';

/** RBAC the CSV's permissions carry; what binds other subjects stays in `remainingRbac`. */
const FOLDED_RBAC_KINDS = new Set(['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);
/** Kinds the CSV describes itself (deployments, webhooks), and namespaces, which OLM's install target replaces. */
const NOT_SHIPPED_KINDS = new Set([
  'Deployment',
  'Namespace',
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
]);

/**
 * The objects the bundle ships beside the CSV, without namespaces: the CRDs, the RBAC left after folding, then
 * every other object of a supported kind that the CSV does not already describe. Unsupported kinds are dropped
 * with a warning.
 */
export function bundleManifests(
  operator: OperatorObjects,
  remainingRbac: readonly Manifest[],
): { manifests: Manifest[]; warnings: string[] } {
  const manifests: Manifest[] = [
    ...operator.crds.map((c) => deepCopy(c)),
    ...remainingRbac.map((o) => deepCopy(o)),
  ];
  const warnings: string[] = [];
  for (const obj of operator.objects) {
    if (obj.kind === CRD_KIND || FOLDED_RBAC_KINDS.has(obj.kind) || operator.isSample(obj)) continue;
    if (NOT_SHIPPED_KINDS.has(obj.kind)) continue;
    if (obj.kind === 'ServiceAccount' && operator.serviceAccounts.has(obj.metadata.name ?? '')) continue;
    if (!isSupportedKind(obj.kind)) {
      warnings.push(
        `${obj.kind} ${JSON.stringify(obj.metadata.name ?? '')} dropped: not a supported kind for a registry+v1 bundle`,
      );
      continue;
    }
    manifests.push(deepCopy(obj));
  }
  for (const m of manifests) delete m.metadata.namespace;
  return { manifests, warnings };
}
