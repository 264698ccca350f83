// The generated parts of an operator project's kubebuilder-layout `config/` directory (CRDs, RBAC roles,
// webhook configurations, conversion patches) and the check of its samples: what `nx run <project>:manifests`
// writes.
export {
  type ConfigApi,
  type ConfigManifestsSpec,
  configManifests,
  sampleProblems,
  writeConfigManifests,
} from './config-manifests.js';
