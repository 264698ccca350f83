import type { Command } from 'commander';
import type { PullOptions } from '../../images.js';
import { OUTPUT_FORMAT_FLAGS, outputFormatOption, RESULT_FORMATS } from '../options.js';

/** `opkit image pull`: an image pulled from a registry into an OCI layout. */
export function registerImagePull(image: Command): void {
  image
    .command('pull <reference> <layout>')
    .description(
      'Pull an image or a multi-platform image into an OCI layout (the inverse of image push), ' +
        'verifying every manifest and blob against its digest and size.',
    )
    .option(
      '--platform <list>',
      'comma-separated platforms to keep of an image index, e.g. linux/arm64 (one: that image alone; default: all)',
    )
    .option('--tag <tag>', 'tag inside the layout (default: <reference> as given)')
    .option('--plain-http', 'talk HTTP, not HTTPS (a registry on loopback)', false)
    .option('--username <name>', 'registry user (with --password or OPKIT_REGISTRY_PASSWORD)')
    .option('--password <secret>', 'registry password (default: docker login’s credentials)')
    .addOption(
      outputFormatOption(
        OUTPUT_FORMAT_FLAGS,
        RESULT_FORMATS,
        'result format (json, yaml: digests, platforms; progress goes to stderr)',
      ),
    )
    .addHelpText(
      'after',
      `
<layout> is new, empty or an earlier layout, never the current directory; of an earlier one only oci-layout,
index.json and blobs/ are replaced (written beside it, then renamed), other files stay. \`opkit image push
<layout>\` pushes it back, to the reference it was pulled from unless another is named.

Examples:
  $ opkit image pull quay.io/acme/memcached-operator:0.2.0 ./memcached-layout
  $ opkit image pull docker.io/library/busybox:1.37 ./busybox --platform linux/arm64
  $ opkit image pull 127.0.0.1:5000/opkit/catalog:latest ./catalog --plain-http --tag latest`,
    )
    .action(async (reference: string, layout: string, opts: PullOptions) => {
      const { pullToLayout } = await import('../../images.js');
      await pullToLayout(reference, layout, opts);
    });
}
