import type { Command } from 'commander';
import { CliError } from '../../cli-error.js';
import { OUTPUT_FORMAT_FLAGS, outputFormatOption, RESULT_FORMATS, type ResultFormat } from '../options.js';

/** `opkit catalog image`: the catalog image as an OCI layout, catalog-only or serving. */
export function registerCatalogImage(catalog: Command): void {
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
        const { imageResult, progressLog, writeResult } = await import('../../output.js');
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
        const { buildServingCatalogImage } = await import('../../pipelines/build-catalog-image.js');
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
