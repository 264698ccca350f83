import type { MigrationLevel } from '@opkit/olm/catalog';
import { type Command, Option } from 'commander';
import { CliError } from '../cli-error.js';
import {
  examples,
  OUTPUT_FORMAT_FLAGS,
  outputFormatOption,
  RESULT_FORMATS,
  type ResultFormat,
  securityContextOption,
} from './options.js';

/** What `--migrate-level` accepts (opm v1.73's migrations, and `all`). */
const MIGRATION_LEVEL_NAMES = ['none', 'bundle-object-to-csv-metadata', 'all'] as const;
type MigrationLevelName = (typeof MIGRATION_LEVEL_NAMES)[number];

const MIGRATE_LEVEL_HELP = `
--migrate-level runs opm's migrations up to the one named: bundle-object-to-csv-metadata replaces the
olm.bundle.object properties of every bundle that has an image by one olm.csv.metadata (OLM then pulls the
manifests from the image); all runs every migration.
`;

function migrateLevelOption(): Option {
  return new Option('--migrate-level <level>', "the last of opm's migrations to run").choices(
    MIGRATION_LEVEL_NAMES,
  );
}

/** The render options `--migrate-level` asks for; the migrations' code loads only when it is given. */
async function migrationLevel(
  name: MigrationLevelName | undefined,
): Promise<{ migrateLevel?: MigrationLevel }> {
  if (name === undefined) return {};
  const { parseMigrationLevel } = await import('@opkit/olm/catalog');
  return { migrateLevel: parseMigrationLevel(name) };
}

export function registerCatalogCommands(program: Command): void {
  const catalog = program
    .command('catalog')
    .description('Build, validate and image file-based catalogs.')
    .addHelpText(
      'after',
      examples([
        'opkit catalog build --template catalog/templates/memcached-operator.yaml --out catalog/configs',
        'opkit catalog validate catalog/configs',
        'opkit catalog render catalog/configs -o yaml',
      ]),
    );
  catalog
    .command('build')
    .description(
      'Render catalog templates (olm.template.basic, olm.semver, olm.template.substitutes) into an FBC directory.',
    )
    .requiredOption('--template <file...>', 'template files, one per package')
    .option('--bundles <dir>', 'bundle directories, as <package>/<version>/', 'bundles')
    .requiredOption(
      '--out <dir>',
      "catalog directory: new, empty or an earlier catalog; only the templates' package directories are replaced",
    )
    .option('--force', 'write into a non-empty directory that is not a catalog (its other files stay)', false)
    .option(
      '--operators <dir>',
      "operator projects: fail where a template disagrees with an operator's version, opkit.channels or opkit.replaces",
    )
    .option(
      '--bundle-images <repository>',
      'name each bundle by its pushed image <repository>/<package>-bundle@<digest> (see bundle push) instead of inline manifests only',
    )
    .option(
      '--plain-http',
      'reach registries over HTTP (--bundle-images, and bundle images the templates name)',
      false,
    )
    .addOption(
      outputFormatOption(
        OUTPUT_FORMAT_FLAGS,
        RESULT_FORMATS,
        'result format (json, yaml: the directory and the package, channel and bundle names)',
      ),
    )
    .addHelpText(
      'after',
      examples(
        [
          'opkit catalog build --template catalog/templates/*.yaml --bundles bundles --out catalog/configs',
          'opkit catalog build --template catalog/templates/memcached-operator.yaml --out catalog/configs',
          'opkit catalog build --template catalog/templates/*.yaml --operators operators --out catalog/configs',
          'opkit catalog build --template catalog/templates/*.yaml --out catalog/configs --bundle-images quay.io/acme',
          'opkit catalog build --template catalog/templates/*.yaml --out catalog/configs -o json',
        ],
        `--out is new, empty, or an earlier catalog (<package>/catalog.json directories). Only the directories of
the packages the templates render are replaced: building one template updates that package and leaves the
others. A non-empty directory that is not a catalog is refused unless --force is given; the current
directory and any directory holding a template, --bundles or --operators are always refused. Files are
written beside --out first and renamed into place: a failed run leaves the old catalog as it was.`,
      ),
    )
    .action(
      async (opts: {
        template: string[];
        bundles: string;
        out: string;
        force: boolean;
        operators?: string;
        bundleImages?: string;
        plainHttp: boolean;
        output: ResultFormat;
      }) => {
        const [
          { cliRegistryClient },
          { buildCatalog, catalogBuildResult },
          { readOperatorReleases },
          { writeResult },
        ] = await Promise.all([
          import('../registry-client.js'),
          import('../catalog-build.js'),
          import('../operator-release.js'),
          import('../output.js'),
        ]);
        const client = opts.bundleImages ? cliRegistryClient({ plainHttp: opts.plainHttp }) : undefined;
        const built = await buildCatalog(
          opts.template,
          opts.bundles,
          opts.out,
          client && opts.bundleImages ? { repository: opts.bundleImages, client } : undefined,
          {
            plainHttp: opts.plainHttp,
            ...(opts.operators !== undefined ? { releases: readOperatorReleases(opts.operators) } : {}),
            output: {
              name: '--out',
              force: opts.force,
              forceFlag: '--force',
              inputs: opts.operators === undefined ? [] : [{ name: '--operators', path: opts.operators }],
            },
          },
        ).finally(() => client?.close());
        const result = catalogBuildResult(opts.out, built);
        await writeResult(
          opts.output,
          result,
          `wrote ${opts.out}: ${result.packages.length} packages, ${result.channels.length} channels, ${result.bundles.length} bundles\n`,
        );
      },
    );
  catalog
    .command('validate <dir>')
    .description('Validate a file-based catalog as `opm validate` does.')
    .addOption(outputFormatOption(OUTPUT_FORMAT_FLAGS, ['text', 'json'], 'report format'))
    .addHelpText(
      'after',
      examples(['opkit catalog validate catalog/configs', 'opkit catalog validate catalog/configs -o json']),
    )
    .action(async (dir: string, opts: { output: 'text' | 'json' }) => {
      const { formatValidationResults, validateCatalogDir } = await import('@opkit/olm/catalog/validate');
      const results = await validateCatalogDir(dir);
      const errors = results.filter((r) => r.level === 'error');
      if (opts.output === 'json')
        process.stdout.write(`${JSON.stringify({ passed: errors.length === 0, results }, null, 2)}\n`);
      else {
        // opm's report of the errors, then opkit's own warnings, which never fail the catalog.
        const report = formatValidationResults(results);
        if (report) process.stderr.write(report.endsWith('\n') ? report : `${report}\n`);
        for (const w of results.filter((r) => r.level === 'warning')) {
          process.stderr.write(`warning: ${w.message}${w.file ? ` (${w.file})` : ''}\n`);
        }
      }
      if (errors.length > 0) process.exitCode = 1;
    });
  catalog
    .command('render <source...>')
    .description(
      'Print catalogs and bundles — directories, OCI layouts or images — as one FBC stream, as `opm render` does.',
    )
    .addHelpText(
      'after',
      `
Each <source> is a file-based catalog directory, a bundle directory (one with metadata/annotations.yaml),
an OCI image layout (<layout-dir> or <layout-dir>:<tag>) or an image reference in a registry, of a catalog
image or a bundle image. A bundle directory renders with an empty image, a bundle image with the reference
given; both with their manifests inline (olm.bundle.object). The output has opm's order and bytes: packages
by name, each with its package, channels, bundles and other blobs.
${MIGRATE_LEVEL_HELP}
Examples:
  $ opkit catalog render catalog/configs -o yaml > catalog.yaml
  $ opkit catalog render bundles/memcached-operator/0.2.0
  $ opkit catalog render quay.io/acme/memcached-operator-bundle:v0.2.0 --migrate-level all
  $ opkit catalog render dist/images/opkit-catalog:latest`,
    )
    .addOption(outputFormatOption(OUTPUT_FORMAT_FLAGS, ['json', 'yaml'], 'output format'))
    .addOption(migrateLevelOption())
    .option('--plain-http', 'pull image references over HTTP, not HTTPS (a registry on loopback)', false)
    .action(
      async (
        sources: string[],
        opts: { output: 'json' | 'yaml'; migrateLevel?: MigrationLevelName; plainHttp: boolean },
      ) => {
        const { renderSources } = await import('../render.js');
        process.stdout.write(
          await renderSources(sources, opts.output, {
            plainHttp: opts.plainHttp,
            ...(await migrationLevel(opts.migrateLevel)),
          }),
        );
      },
    );
  catalog
    .command('migrate <source> <out-dir>')
    .description(
      'Write a catalog — directory, OCI layout or image — as one directory per package, as `opm migrate` does.',
    )
    .addHelpText(
      'after',
      `
<source> is a file-based catalog directory, an OCI image layout of a catalog image (<layout-dir> or
<layout-dir>:<tag>) or a catalog image reference. <out-dir> must be empty or absent, and neither the
current directory nor one holding <source>; it receives <package>/catalog.json (or .yaml) for every package,
with opm's order and bytes.
${MIGRATE_LEVEL_HELP}
Examples:
  $ opkit catalog migrate quay.io/acme/catalog:v1 catalog/configs
  $ opkit catalog migrate old-catalog/ catalog/configs -o yaml --migrate-level bundle-object-to-csv-metadata`,
    )
    .addOption(outputFormatOption(OUTPUT_FORMAT_FLAGS, ['json', 'yaml'], 'format of the files written'))
    .addOption(migrateLevelOption())
    .option('--plain-http', 'pull an image reference over HTTP, not HTTPS (a registry on loopback)', false)
    .action(
      async (
        source: string,
        outDir: string,
        opts: { output: 'json' | 'yaml'; migrateLevel?: MigrationLevelName; plainHttp: boolean },
      ) => {
        const { migrateSource } = await import('../render.js');
        const written = await migrateSource(source, outDir, opts.output, {
          plainHttp: opts.plainHttp,
          ...(await migrationLevel(opts.migrateLevel)),
        });
        process.stderr.write(`wrote ${outDir}: ${written.length} files\n`);
      },
    );
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
        const { parsePort, serveCatalog } = await import('../serve.js');
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
        const { parseDuration, publishCatalog } = await import('../publish.js');
        await publishCatalog({
          ...opts,
          timeoutMs: parseDuration(opts.timeout),
          log: (line) => process.stdout.write(`${line}\n`),
        });
      },
    );
  catalog
    .command('image <dir>')
    .description(
      'Build the catalog image (/configs, the index.configs label) as an OCI image layout, without Docker.',
    )
    .addHelpText(
      'after',
      `
Without --base the image holds only the catalog (FROM scratch): OLM serves it with a CatalogSource's
spec.grpcPodConfig.extractContent (\`opkit catalog publish --image <ref> --extract-content /configs\`), and
opm render reads it.

With --base (a Node 24 image, e.g. gcr.io/distroless/nodejs24-debian12:nonroot) the image also serves:
its entrypoint is \`opkit catalog serve /configs\` on :50051, starting from a serve cache (/tmp/cache) made
when the image is built, and it carries grpc_health_probe, which OLM's registry pod runs as its probes. A
CatalogSource with spec.image runs it as it is.

Examples:
  $ opkit catalog image catalog/configs --layout dist/images/opkit-catalog
  $ opkit catalog image catalog/configs --layout dist/images/opkit-catalog -o json
  $ opkit catalog image catalog/configs --layout dist/images/opkit-catalog --tag quay.io/acme/catalog:v1 \\
      --base gcr.io/distroless/nodejs24-debian12:nonroot --inline-bundles
  $ opkit image push dist/images/opkit-catalog quay.io/acme/catalog:v1`,
    )
    .requiredOption(
      '--layout <dir>',
      'OCI layout directory to write: new, empty or an earlier layout (its oci-layout, index.json and blobs/ are replaced)',
    )
    .option('--tag <tag>', 'tag inside the layout', 'latest')
    .option('--base <image>', 'a Node base image (registry reference or layout dir[:tag]): the image serves')
    .option('--inline-bundles', 'the server puts bundle manifests inline (with --base)', false)
    .option('--plain-http', 'pull the base over HTTP (a registry on loopback)', false)
    .addOption(
      outputFormatOption(
        OUTPUT_FORMAT_FLAGS,
        RESULT_FORMATS,
        'result format (json, yaml: reference, digest, media type, size; progress goes to stderr)',
      ),
    )
    .action(
      async (
        dir: string,
        opts: {
          layout: string;
          tag: string;
          base?: string;
          inlineBundles: boolean;
          plainHttp: boolean;
          output: ResultFormat;
        },
      ) => {
        if (opts.inlineBundles && opts.base === undefined) {
          throw new CliError(
            'OPKIT_ARGUMENT_INVALID',
            '--inline-bundles configures the server of a serving image: give --base too',
          );
        }
        const { formatValidationResults, validateCatalogDir } = await import('@opkit/olm/catalog/validate');
        const results = (await validateCatalogDir(dir)).filter((r) => r.level === 'error');
        if (results.length > 0) {
          throw new CliError('OPKIT_CATALOG_INVALID', `${dir}: ${formatValidationResults(results).trim()}`);
        }
        const { imageResult, progressLog, writeResult } = await import('../output.js');
        if (opts.base === undefined) {
          const { catalogImage, writeLayout } = await import('@opkit/oci');
          const image = await catalogImage(dir);
          await writeLayout(opts.layout, [{ image, tag: opts.tag }], {
            name: '--layout',
            inputs: [{ name: '<dir>', path: dir }],
          });
          const result = imageResult(opts.layout, opts.tag, image);
          await writeResult(opts.output, result, `${result.digest} ${result.reference}\n`);
          return;
        }
        const { buildServingCatalogImage } = await import('../pipelines/build-catalog-image.js');
        const built = await buildServingCatalogImage({
          configsDir: dir,
          base: opts.base,
          layout: opts.layout,
          tag: opts.tag,
          inlineBundles: opts.inlineBundles,
          plainHttp: opts.plainHttp,
          log: progressLog(opts.output),
        });
        // The text lines are the build's progress, already printed.
        await writeResult(
          opts.output,
          {
            reference: `${built.layout}:${built.tag}`,
            layout: built.layout,
            tag: built.tag,
            digest: built.digest,
            mediaType: built.mediaType,
            size: built.size,
            platforms: built.images,
          },
          '',
        );
      },
    );
}
