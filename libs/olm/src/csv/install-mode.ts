import type { InstallMode, InstallModeType } from '../manifest/cluster-service-version.js';
import { CsvError } from './errors.js';

/** An install mode as `operator-sdk run bundle --install-mode` takes it. */
export type InstallModeRequest =
  | { readonly type: 'AllNamespaces' }
  | { readonly type: 'OwnNamespace' }
  | { readonly type: 'SingleNamespace'; readonly namespace: string };

/** The OperatorGroup an install mode needs: the mode and `spec.targetNamespaces` (empty: all namespaces). */
export interface OperatorGroupTarget {
  readonly mode: InstallModeType;
  readonly targetNamespaces: readonly string[];
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/**
 * Parses `AllNamespaces`, `OwnNamespace` or `SingleNamespace=<namespace>`. MultiNamespace is refused, as
 * operator-sdk refuses it: OLM is deprecating it.
 *
 * @throws CsvError `OLM_INSTALL_MODE_INVALID`
 */
export function parseInstallMode(value: string): InstallModeRequest {
  const [type, namespace, ...rest] = value.split('=');
  if (type === 'AllNamespaces' || type === 'OwnNamespace') {
    if (namespace !== undefined) {
      throw new CsvError('OLM_INSTALL_MODE_INVALID', `install mode ${value}: ${type} takes no namespace`);
    }
    return { type };
  }
  if (type === 'SingleNamespace') {
    if (namespace === undefined || rest.length > 0 || !DNS_LABEL.test(namespace)) {
      throw new CsvError(
        'OLM_INSTALL_MODE_INVALID',
        `install mode ${value}: give one namespace, e.g. SingleNamespace=my-namespace`,
      );
    }
    return { type, namespace };
  }
  throw new CsvError(
    'OLM_INSTALL_MODE_INVALID',
    `install mode ${JSON.stringify(value)}: expected AllNamespaces, OwnNamespace or SingleNamespace=<namespace>`,
  );
}

/**
 * The OperatorGroup targets for installing a CSV into `namespace`. Without a request, the mode is chosen as
 * operator-sdk chooses it: AllNamespaces when the CSV supports it, else OwnNamespace; anything else must be
 * asked for. A requested mode the CSV does not support is refused. SingleNamespace naming the install
 * namespace is OwnNamespace, and needs the CSV to support that.
 *
 * @throws CsvError `OLM_INSTALL_MODE_INVALID`
 */
export function operatorGroupTarget(
  installModes: readonly InstallMode[] | undefined,
  namespace: string,
  request?: InstallModeRequest,
): OperatorGroupTarget {
  const supported = new Set((installModes ?? []).filter((m) => m.supported).map((m) => m.type));
  const listed = [...supported].join(', ') || 'none';
  if (request === undefined) {
    if (supported.has('AllNamespaces')) return { mode: 'AllNamespaces', targetNamespaces: [] };
    if (supported.has('OwnNamespace')) return { mode: 'OwnNamespace', targetNamespaces: [namespace] };
    throw new CsvError(
      'OLM_INSTALL_MODE_INVALID',
      `the CSV supports neither AllNamespaces nor OwnNamespace (supported: ${listed}): choose an install mode, e.g. SingleNamespace=<namespace>`,
    );
  }
  const mode: InstallModeType =
    request.type === 'SingleNamespace' && request.namespace === namespace ? 'OwnNamespace' : request.type;
  if (!supported.has(mode)) {
    throw new CsvError(
      'OLM_INSTALL_MODE_INVALID',
      `the CSV does not support install mode ${mode}${mode !== request.type ? ` (SingleNamespace=${namespace} is the install namespace itself)` : ''} (supported: ${listed})`,
    );
  }
  if (request.type === 'AllNamespaces') return { mode, targetNamespaces: [] };
  if (request.type === 'OwnNamespace') return { mode, targetNamespaces: [namespace] };
  return { mode, targetNamespaces: [request.namespace] };
}

/** Whether an existing OperatorGroup's targets serve a mode: all namespaces, or exactly the one namespace. */
export function targetsMatch(existing: readonly string[] | undefined, wanted: OperatorGroupTarget): boolean {
  const have = (existing ?? []).filter((n) => n !== '');
  if (wanted.targetNamespaces.length === 0) return have.length === 0;
  return (
    have.length === wanted.targetNamespaces.length && have.every((n, i) => n === wanted.targetNamespaces[i])
  );
}
