// `nx run memcached:manifests`: writes the generated parts of config/ — the CRD from the API schemas, the
// RBAC roles from the controllers' declared needs, the webhook configurations and the CRD's conversion patch
// from the webhook declaration — and checks the samples against the schemas.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { prometheusRuleRbac } from '@opkit/controller-runtime/monitoring';
import { type ConfigManifestsSpec, writeConfigManifests } from '@opkit/controller-tools/manifests';
import { apis, webhooks } from '../api/index.js';
import { controllerRbac } from '../controller/index.js';

export const manifestsSpec: ConfigManifestsSpec = {
  generator: 'nx run memcached:manifests',
  apis,
  managerRules: controllerRbac,
  namespacedRules: prometheusRuleRbac,
  webhooks,
};

// Run as a script, not imported (a URL, so a path with spaces or other escaped characters matches too).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (!writeConfigManifests(join(import.meta.dirname, '..', '..'), manifestsSpec)) process.exitCode = 1;
}
