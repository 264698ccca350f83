import { type PermissionAtom, resourceCovers, valueCovers } from './rbac-atoms.js';

/** A right that lets its holder reach further than its rules say: read credentials, grant itself more, run as others. */
interface SensitiveRight {
  readonly apiGroup: string;
  /** Resources (with subresource); `undefined`: any. */
  readonly resources?: readonly string[];
  /** Verbs; `undefined`: any. */
  readonly verbs?: readonly string[];
}

const WRITE = ['create', 'update', 'patch', 'delete', 'deletecollection'];

const SENSITIVE: readonly SensitiveRight[] = [
  { apiGroup: '', resources: ['secrets'], verbs: ['get', 'list', 'watch'] },
  {
    apiGroup: 'rbac.authorization.k8s.io',
    resources: ['roles', 'clusterroles', 'rolebindings', 'clusterrolebindings'],
    verbs: ['create', 'update', 'patch', 'escalate', 'bind'],
  },
  { apiGroup: '', resources: ['serviceaccounts/token'], verbs: ['create'] },
  // Acting as another user, group or service account (a `*` verb on them grants `impersonate`).
  { apiGroup: '', resources: ['users', 'groups', 'serviceaccounts'], verbs: ['impersonate'] },
  { apiGroup: '', resources: ['pods/exec', 'pods/attach'] },
  // A pod may name any service account of its namespace and so run with that account's rights.
  { apiGroup: '', resources: ['pods'], verbs: ['create'] },
  { apiGroup: '', resources: ['nodes/proxy'] },
  // Node objects steer scheduling and the kubelet's view of itself (taints, labels, removal).
  { apiGroup: '', resources: ['nodes'], verbs: ['update', 'patch', 'delete'] },
  // A persistent volume may be a hostPath: any file of the node, mounted into a pod.
  { apiGroup: '', resources: ['persistentvolumes'], verbs: ['create'] },
  // Approving certificate requests (and signing as a signer) issues credentials for any identity.
  { apiGroup: 'certificates.k8s.io', resources: ['certificatesigningrequests/approval'], verbs: ['update'] },
  { apiGroup: 'certificates.k8s.io', resources: ['signers'], verbs: ['approve'] },
  {
    apiGroup: 'admissionregistration.k8s.io',
    resources: ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations'],
    verbs: WRITE,
  },
  // Writing a CRD's status too: trimming storedVersions can strand stored objects.
  {
    apiGroup: 'apiextensions.k8s.io',
    resources: ['customresourcedefinitions', 'customresourcedefinitions/status'],
    verbs: WRITE,
  },
];

/**
 * Whether the atom grants any escalating right: one of the sensitive rights above, `impersonate` on anything,
 * or a `*` (verb, group or resource) that takes one of them in.
 */
export function isEscalation(atom: PermissionAtom): boolean {
  if (atom.verb === 'impersonate') return true;
  if (atom.nonResourceURL !== undefined) return false;
  const group = atom.apiGroup ?? '';
  const resource = atom.resource ?? '';
  return SENSITIVE.some(
    (s) =>
      valueCovers(group, s.apiGroup) &&
      (s.resources === undefined || s.resources.some((r) => resourceCovers(resource, r))) &&
      (s.verbs === undefined || s.verbs.some((v) => valueCovers(atom.verb, v))),
  );
}
