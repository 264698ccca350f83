import type { Command } from 'commander';
import { CliError } from '../../cli-error.js';

/** `opkit catalog serve`: a catalog served over OLM's registry gRPC API, as `opm serve` serves it. */
export function registerCatalogServe(catalog: Command): void {
  catalog
    .command('serve <catalog>')
    .description(
      "Serve a catalog over OLM's registry gRPC API (api.Registry and grpc.health.v1.Health), as `opm serve` does.",
    )
    .addHelpText(
      'after',
      `
<catalog> is a file-based catalog directory, an OCI image layout written by \`opkit catalog image\`
(<layout-dir> or <layout-dir>:<tag>), or an image reference in a registry (pulled anonymously).
The catalog is validated first; an invalid one is refused, as opm refuses it.

Point a CatalogSource at it with \`opkit catalog publish --address <host>:<port>\`.

--inline-bundles serves every bundle's manifests inside the API (object and csvJson set, bundlePath
empty), so OLM installs without a bundle-unpack Job — for clusters that cannot pull bundle images.
The manifests come from the catalog's olm.bundle.object properties, or else from
<bundles-dir>/<package>/<version>/. Without it, bundles are served as opm serves them.

--cache-dir keeps a serve cache, as opm's does: the catalog converted for serving, written once (with
--cache-only, e.g. when an image is built) and read at start-up instead of loading and validating the
catalog. The cache is used only for the very files and options it was made from. With --cache-dir and
without --cache-only, a cache that does not match stops the server (--no-cache-enforce-integrity rebuilds
it instead).

Connections are bounded: at most 128 at once; one that has not sent the HTTP/2 preface within 10 s, that
makes no call for 90 s or that stops answering pings (sent every 30 s) for 10 s is closed; each is asked to
reconnect after 30 minutes.

Stops gracefully on SIGINT or SIGTERM. One that comes while the image is still pulled, unpacked or
loaded stops that work, removes its temporary files and ends the process by that signal.

Examples:
  $ opkit catalog serve catalog/configs --port 50051
  $ opkit catalog serve dist/images/opkit-catalog:latest --inline-bundles --port 0
  $ opkit catalog serve quay.io/acme/catalog:v1
  $ opkit catalog serve /configs --cache-dir /tmp/cache --cache-only    # at image build time
  $ opkit catalog serve /configs --cache-dir /tmp/cache                 # in the image`,
    )
    .option('--port <port>', 'gRPC port (0 picks a free one; the chosen port is logged)', '50051')
    .option('--host <address>', 'interface to listen on (opm listens on all of them)', '0.0.0.0')
    .option('--inline-bundles', 'serve bundle manifests inline with an empty bundlePath', false)
    .option(
      '--bundles-dir <dir>',
      'bundle directories (<package>/<version>/) for --inline-bundles',
      'bundles',
    )
    .option('--plain-http', 'pull an image reference over HTTP, not HTTPS (a registry on loopback)', false)
    .option('--cache-dir <dir>', 'start from the serve cache in <dir>; write it when there is none')
    .option('--cache-only', 'write the serve cache (needs --cache-dir) and exit without serving', false)
    .option(
      '--cache-enforce-integrity',
      'refuse to start unless the cache matches the catalog (default with --cache-dir, without --cache-only)',
    )
    .option('--no-cache-enforce-integrity', 'rebuild a cache that does not match the catalog')
    .action(
      async (
        source: string,
        opts: {
          port: string;
          host: string;
          inlineBundles: boolean;
          bundlesDir: string;
          plainHttp: boolean;
          cacheDir?: string;
          cacheOnly: boolean;
          cacheEnforceIntegrity?: boolean;
        },
      ) => {
        if (opts.cacheOnly && opts.cacheDir === undefined) {
          throw new CliError(
            'OPKIT_ARGUMENT_INVALID',
            '--cache-only writes the serve cache: give --cache-dir too',
          );
        }
        // Loaded on demand: the gRPC stack is only needed by this command.
        const { parsePort, serveCatalog } = await import('../../serve.js');
        await serveCatalog(source, {
          port: parsePort(opts.port),
          host: opts.host,
          inlineBundles: opts.inlineBundles,
          bundlesDir: opts.bundlesDir,
          plainHttp: opts.plainHttp,
          ...(opts.cacheDir !== undefined
            ? {
                cache: {
                  dir: opts.cacheDir,
                  only: opts.cacheOnly,
                  enforceIntegrity: opts.cacheEnforceIntegrity ?? !opts.cacheOnly,
                },
              }
            : {}),
        });
      },
    );
}
