export {
  type ConfigApi,
  type ConfigManifestsSpec,
  configManifests,
  sampleProblems,
  writeConfigManifests,
} from './config-manifests.js';
