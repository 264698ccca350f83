import type { Command } from 'commander';
import type { DeployOptions } from '../../deploy.js';
import { DEFAULT_BASE_IMAGE } from '../../pipelines/image-defaults.js';
import { OUTPUT_FORMAT_FLAGS, outputFormatOption, RESULT_FORMATS } from '../options.js';

/** `opkit deploy`: an operator project's config/default applied to the current cluster (what `make deploy` does). */
export function registerDeploy(program: Command): void {
  program
    .command('deploy')
    .description(
      'Install an operator (CRDs, RBAC, manager Deployment from config/default) into the current cluster.',
    )
    .option(
      '--image <ref>',
      "operator image, e.g. registry.example.com/memcached-operator:0.2.0 (default: built, pushed to the cluster's local registry)",
    )
    .option('--operator <dir>', 'operator project directory', '.')
    .option('--kubeconfig <path>', 'kubeconfig (default: $KUBECONFIG or ~/.kube/config)')
    .option(
      '--cert-manager',
      'render config/with-certmanager: cert-manager issues the webhook certificate instead of opkit',
      false,
    )
    .addOption(
      outputFormatOption(
        OUTPUT_FORMAT_FLAGS,
        RESULT_FORMATS,
        "result format (text: kubectl's lines; json, yaml: the objects applied, kubectl's lines on stderr)",
      ),
    )
    .addHelpText(
      'after',
      `
Webhooks: when the manifests configure webhooks, deploy issues their serving certificate (an authority kept in
the Secret <name>-ca, the certificate in the Secret the manager mounts) and sets every webhook's caBundle.
Deploying again keeps both and renews the certificate within 30 days of expiry; the webhook server picks the
new one up without a restart. With --cert-manager, cert-manager does this instead.

Without --image, deploy reads the cluster's local registry from the ConfigMap kube-public/local-registry-hosting
(how kind and other local clusters, and opkit-cluster, record it), builds the operator's image on the base
image the cluster records (else ${DEFAULT_BASE_IMAGE}), pushes it there as <registry>/<opkit.package>:<version>
and deploys that. A cluster without one needs --image: build and push the image first (opkit image build,
opkit image push).

Every object applied carries deploy's label opkit.dev/deploy and annotation opkit.dev/deploy-run, by which
undeploy knows it, except one that already existed without them (a namespace or CRD made beforehand): that
one is applied unmarked, printed on stderr as "found <object>: …", and undeploy leaves it and what it holds.

Examples:
  $ opkit deploy --operator operators/memcached     # on a local cluster: builds, pushes, deploys
  $ opkit deploy --operator operators/memcached --image registry.example.com/memcached-operator:0.3.0
  $ opkit deploy --operator . --image registry.example.com/memcached-operator:0.3.0 --cert-manager
  $ opkit deploy --operator operators/memcached --image registry.example.com/memcached-operator:0.3.0 -o json`,
    )
    .action(async (opts: DeployOptions) => {
      const { deployOperator } = await import('../../deploy.js');
      await deployOperator(opts);
    });
}
