export { type CrdManifest, OLM_API_GROUP, olmCrds } from './crds.js';
export {
  type InstallRunOptions,
  installOlm,
  type KubeApi,
  OlmInstallError,
  type OlmResourceStatus,
  olmStatus,
  type UninstallOptions,
  uninstallOlm,
} from './installer.js';
export { collectionPath, KubeObjects, KubeRequestError, objectPath } from './kube.js';
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
