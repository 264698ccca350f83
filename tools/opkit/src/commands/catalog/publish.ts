import type { Command } from 'commander';
import { securityContextOption } from '../options.js';

/** `opkit catalog publish`: a CatalogSource for a gRPC catalog, applied and waited on until READY. */
export function registerCatalogPublish(catalog: Command): void {
  catalog
    .command('publish')
    .description('Create or update a CatalogSource for a gRPC catalog and wait until OLM reports it READY.')
    .addHelpText(
      'after',
      `
Applies (server-side apply, field manager "opkit") a CatalogSource of sourceType grpc in --namespace,
pointing at a running registry server (--address, e.g. one started with \`opkit catalog serve\`) or at a
catalog image OLM runs as a pod (--image). Then follows status.connectionState.lastObservedState,
printing each state it sees, until it is READY. If it is not READY within --timeout, the last state
(e.g. TRANSIENT_FAILURE or CONNECTING for an address nothing listens on) is printed and the exit code is 1.

--extract-content <dir> (with --image) sets spec.grpcPodConfig.extractContent: OLM copies the catalog at
<dir> out of the image and serves it with its own opm image, so a catalog-only image (\`opkit catalog
image\` without --base) works too.

Examples:
  $ opkit catalog serve catalog/configs --inline-bundles --port 50051 &
  $ opkit catalog publish --name opkit --address 127.0.0.1:50051 --kubeconfig ./kubeconfig
  $ opkit catalog publish --name opkit --image quay.io/acme/catalog:v1
  $ opkit catalog publish --name opkit --image quay.io/acme/catalog-content:v1 --extract-content /configs`,
    )
    .requiredOption('--name <name>', 'CatalogSource name')
    .option('--namespace <ns>', "namespace (OLM's global catalog namespace is olm)", 'olm')
    .option('--address <host:port>', 'address of a running registry gRPC server (spec.address)')
    .option('--image <reference>', 'catalog image for OLM to run (spec.image)')
    .option('--extract-content <dir>', "the catalog's directory in --image, served by OLM's own opm")
    .addOption(securityContextOption())
    .option('--display-name <text>', 'spec.displayName')
    .option('--timeout <duration>', 'how long to wait for READY (e.g. 120s, 2m)', '120s')
    .option('--kubeconfig <path>', 'kubeconfig file (default: $KUBECONFIG or ~/.kube/config)')
    .action(
      async (opts: {
        name: string;
        namespace: string;
        address?: string;
        image?: string;
        extractContent?: string;
        securityContextConfig?: 'legacy' | 'restricted';
        displayName?: string;
        timeout: string;
        kubeconfig?: string;
      }) => {
        const { parseDuration, publishCatalog } = await import('../../publish.js');
        await publishCatalog({
          ...opts,
          timeoutMs: parseDuration(opts.timeout),
          log: (line) => process.stdout.write(`${line}\n`),
        });
      },
    );
}
