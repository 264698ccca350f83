// OLM's own install, as `opkit olm install | status | uninstall` lays it out and manages it over the runtime's
// Kubernetes client; the test kit's clusters install OLM with it too.

export type { KubeApi } from './cluster-objects.js';
export { type CrdManifest, OLM_API_GROUP, olmCrds } from './crds.js';
export {
  type InstallRunOptions,
  installOlm,
  OlmInstallError,
  type OlmResourceStatus,
  olmStatus,
  type UninstallOptions,
  uninstallOlm,
} from './installer.js';
export {
  CATALOG_OPERATOR,
  defaultOlmImage,
  type InstallObject,
  OLM_NAMESPACE,
  OLM_OPERATOR,
  type OlmInstallManifests,
  type OlmInstallOptions,
  OPERATORS_NAMESPACE,
  olmInstallManifests,
  PACKAGE_SERVER,
} from './manifests.js';
