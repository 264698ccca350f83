// `nx run memcached:manifests`: writes the generated parts of config/ — the CRD from the API schemas, the
// RBAC roles from the controller's declared needs, the webhook configurations and the CRD's conversion patch
// from the webhook declaration — and checks the samples against the schema.
import { join } from 'node:path';
import { type ConfigManifestsSpec, writeConfigManifests } from '@opkit/controller-runtime';
import { memcachedCrd, memcachedWebhooks, v1alpha1, validateMemcached } from '../api/index.js';
import { memcachedControllerRbac, monitoringRbac } from '../controller/rbac.js';

export const manifestsSpec: ConfigManifestsSpec = {
  generator: 'nx run memcached:manifests',
  apis: [
    {
      crd: memcachedCrd,
      // Samples exist for both served versions; each is checked against its own version's schema.
      validateSample: (sample) =>
        (sample as { apiVersion?: string }).apiVersion === v1alpha1.MEMCACHED.apiVersion
          ? v1alpha1.validateMemcached(sample)
          : validateMemcached(sample),
    },
  ],
  managerRules: memcachedControllerRbac,
  namespacedRules: monitoringRbac,
  webhooks: [memcachedWebhooks],
};

if (import.meta.url === `file://${process.argv[1]}`) {
  if (!writeConfigManifests(join(import.meta.dirname, '..', '..'), manifestsSpec)) process.exitCode = 1;
}
