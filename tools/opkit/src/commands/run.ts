import type { Command } from 'commander';
import { examples, securityContextOption } from './options.js';

interface ClusterFlags {
  namespace?: string;
  kubeconfig?: string;
  timeout: string;
}
interface RegistryFlags {
  plainHttp: boolean;
  skipTlsVerify: boolean;
  securityContextConfig?: 'legacy' | 'restricted';
}

function clusterOptions(command: Command, namespace: string): Command {
  return command
    .option('-n, --namespace <ns>', `${namespace} (default: the kubeconfig context's, else default)`)
    .option('--kubeconfig <path>', 'kubeconfig file (default: $KUBECONFIG or ~/.kube/config)')
    .option('--timeout <duration>', 'how long to wait for the whole command (e.g. 2m, 300s)', '2m');
}

function registryOptions(command: Command): Command {
  return command
    .option('--plain-http', 'talk HTTP, not HTTPS, to the registry (a local registry)', false)
    .option('--skip-tls-verify', "accept a registry's TLS certificate without verifying it", false)
    .addOption(securityContextOption());
}

export function registerRunCommands(program: Command): void {
  const run = program
    .command('run')
    .description('Run an operator on a cluster through OLM, from its bundle image.')
    .addHelpText(
      'after',
      examples([
        'opkit run bundle quay.io/acme/memcached-operator-bundle:v0.1.0 -n operators',
        'opkit run bundle-upgrade quay.io/acme/memcached-operator-bundle:v0.2.0 -n operators',
      ]),
    );
  const bundle = run
    .command('bundle <bundle-image>')
    .description(
      'Install a bundle image with OLM, as `operator-sdk run bundle` does, and wait until its CSV succeeds.',
    )
    .addHelpText(
      'after',
      `
Reads the bundle's package, default channel, CSV and install modes from the image, pushes a catalog image
holding just that bundle (by digest) to --catalog-repository:<csv name>, and creates in --namespace:
  - CatalogSource <package>-catalog (grpc, the catalog image; OLM serves its /configs with its own opm),
  - an OperatorGroup opkit-run-bundle for the install mode, unless the namespace has one that fits,
  - Subscription <package> (channel, startingCSV, manual approval),
then approves the InstallPlan for the bundle's CSV and waits until the CSV is Succeeded. Each object it
creates carries the label opkit.dev/run-bundle=<package> and the annotation opkit.dev/run-bundle-run naming
the run (package, namespace, run id), by which \`opkit cleanup\` knows it. It never takes over an existing
CatalogSource or Subscription of those names, or an OperatorGroup, that a run for the package did not create:
it stops with an error naming the object and leaves it as it is.

The install mode defaults as operator-sdk chooses it: AllNamespaces when the CSV supports it, else
OwnNamespace. A failed CSV, InstallPlan or bundle-unpack Job ends the command with OLM's reason.

Examples:
  $ opkit run bundle quay.io/acme/memcached-operator-bundle:v0.1.0 -n operators
  $ opkit run bundle 127.0.0.1:5000/acme/memcached-operator-bundle:v0.1.0 --plain-http \\
      --install-mode OwnNamespace --env RELATED_IMAGE_MEMCACHED=docker.io/library/memcached:1.6
  $ opkit run bundle quay.io/acme/memcached-operator-bundle:v0.1.0 \\
      --catalog-repository quay.io/acme/dev-catalog --timeout 5m`,
    )
    .option('--install-mode <mode>', 'AllNamespaces, OwnNamespace or SingleNamespace=<namespace>')
    .option(
      '--catalog-repository <repository>',
      'where the catalog image is pushed (default: <package>-catalog beside the bundle repository)',
    )
    .option(
      '--env <NAME=VALUE>',
      "environment for the operator's containers (Subscription spec.config.env); repeatable",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    );
  registryOptions(clusterOptions(bundle, 'namespace to install in')).action(
    async (
      image: string,
      opts: ClusterFlags &
        RegistryFlags & { installMode?: string; catalogRepository?: string; env: string[] },
    ) => {
      const [{ runBundle }, { parseDuration }] = await Promise.all([
        import('../run-bundle/install.js'),
        import('../publish.js'),
      ]);
      await runBundle({
        bundleImage: image,
        ...(opts.namespace === undefined ? {} : { namespace: opts.namespace }),
        ...(opts.kubeconfig === undefined ? {} : { kubeconfig: opts.kubeconfig }),
        ...(opts.installMode === undefined ? {} : { installMode: opts.installMode }),
        ...(opts.catalogRepository === undefined ? {} : { catalogRepository: opts.catalogRepository }),
        env: opts.env,
        timeoutMs: parseDuration(opts.timeout),
        plainHttp: opts.plainHttp,
        skipTlsVerify: opts.skipTlsVerify,
        ...(opts.securityContextConfig === undefined
          ? {}
          : { securityContextConfig: opts.securityContextConfig }),
        log: (line) => process.stdout.write(`${line}\n`),
      });
    },
  );

  const upgrade = run
    .command('bundle-upgrade <bundle-image>')
    .description('Upgrade an operator installed by `opkit run bundle` to a new bundle image.')
    .addHelpText(
      'after',
      `
Finds the Subscription and CatalogSource \`opkit run bundle\` created for the new bundle's package in
--namespace, adds the bundle to their catalog as the replacement of the installed CSV, pushes that catalog
beside the old one (tagged with the new CSV's name), points the CatalogSource at it, approves the upgrade's
InstallPlan and waits until the new CSV is Succeeded and the old one is gone.

Examples:
  $ opkit run bundle quay.io/acme/memcached-operator-bundle:v0.1.0 -n operators
  $ opkit run bundle-upgrade quay.io/acme/memcached-operator-bundle:v0.2.0 -n operators`,
    );
  registryOptions(clusterOptions(upgrade, 'namespace the bundle runs in')).action(
    async (image: string, opts: ClusterFlags & RegistryFlags) => {
      const [{ upgradeBundle }, { parseDuration }] = await Promise.all([
        import('../run-bundle/install.js'),
        import('../publish.js'),
      ]);
      await upgradeBundle({
        bundleImage: image,
        ...(opts.namespace === undefined ? {} : { namespace: opts.namespace }),
        ...(opts.kubeconfig === undefined ? {} : { kubeconfig: opts.kubeconfig }),
        timeoutMs: parseDuration(opts.timeout),
        plainHttp: opts.plainHttp,
        skipTlsVerify: opts.skipTlsVerify,
        ...(opts.securityContextConfig === undefined
          ? {}
          : { securityContextConfig: opts.securityContextConfig }),
        log: (line) => process.stdout.write(`${line}\n`),
      });
    },
  );

  const cleanup = program
    .command('cleanup <package>')
    .description(
      'Remove an operator installed by `opkit run bundle`, as `operator-sdk cleanup` does: only what it created.',
    )
    .addHelpText(
      'after',
      `
Deletes, in --namespace, only what \`opkit run bundle\` provably created for <package>: it starts from the
Subscription, CatalogSource and OperatorGroup carrying both its label opkit.dev/run-bundle=<package> and its
annotation opkit.dev/run-bundle-run naming the package and namespace, and follows only them: the Subscription
→ the CSVs its status names → the CRDs they own, and the InstallPlans no other Subscription shares. OLM's own
labels select nothing, and an InstallPlan never leads to another package. Order: the Subscription, the CRDs
(while the operator still runs to finalize their objects), the CSVs, the InstallPlans, the CatalogSource
(unless another Subscription uses it) and the OperatorGroup (once no other Subscription in the namespace is
left). Waits until each is gone.

A CRD that a CSV cleanup did not follow also owns is never deleted, nor one \`opkit deploy\` applied or one
created before the run's Subscription (the run found it). A CRD that still has objects is kept
unless --delete-crds is given, which says how many objects go with it. Every object left is printed with
the reason; with nothing to delete it says so and succeeds.

Examples:
  $ opkit cleanup memcached-operator -n operators
  $ opkit cleanup memcached-operator -n operators --delete-crds      # the CRDs go even with objects left
  $ opkit cleanup memcached-operator -n operators --no-delete-crds   # keep the CRDs and their objects`,
    )
    .option('--delete-crds', 'delete the CRDs even while objects of them exist, and those objects with them')
    .option('--no-delete-crds', 'keep every CRD, even one without objects')
    .option('--no-delete-operator-groups', 'keep the OperatorGroup run bundle created');
  clusterOptions(cleanup, 'namespace to clean up').action(
    async (
      packageName: string,
      opts: ClusterFlags & { deleteCrds?: boolean; deleteOperatorGroups: boolean },
    ) => {
      const [{ cleanup }, { parseDuration }] = await Promise.all([
        import('../run-bundle/cleanup.js'),
        import('../publish.js'),
      ]);
      await cleanup({
        packageName,
        ...(opts.namespace === undefined ? {} : { namespace: opts.namespace }),
        ...(opts.kubeconfig === undefined ? {} : { kubeconfig: opts.kubeconfig }),
        crds: opts.deleteCrds === undefined ? 'if-empty' : opts.deleteCrds ? 'with-objects' : 'keep',
        deleteOperatorGroups: opts.deleteOperatorGroups,
        timeoutMs: parseDuration(opts.timeout),
        log: (line) => process.stdout.write(`${line}\n`),
      });
    },
  );
}
