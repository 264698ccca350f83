// `nx run memcached:manifests`: writes the generated parts of config/ — the CRD from the API schema and the
// RBAC roles from the controller's declared needs — and checks the samples against the schema.
import { join } from 'node:path';
import { type ConfigManifestsSpec, writeConfigManifests } from '@opkit/controller-runtime';
import { memcachedCrd, validateMemcached } from '../api/v1alpha1/index.js';
import { memcachedControllerRbac, monitoringRbac } from '../controller/rbac.js';

export const manifestsSpec: ConfigManifestsSpec = {
  generator: 'nx run memcached:manifests',
  crd: memcachedCrd,
  managerRules: memcachedControllerRbac,
  namespacedRules: monitoringRbac,
  sampleKind: 'Memcached',
  validateSample: validateMemcached,
};

if (import.meta.url === `file://${process.argv[1]}`) {
  if (!writeConfigManifests(join(import.meta.dirname, '..', '..'), manifestsSpec)) process.exitCode = 1;
}
