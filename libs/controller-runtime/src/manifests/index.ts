// @opkit/controller-runtime/manifests (build time): the writer of an operator's config/ manifests.
export {
  type ConfigApi,
  type ConfigManifestsSpec,
  configManifests,
  sampleProblems,
  writeConfigManifests,
} from './config-manifests.js';
