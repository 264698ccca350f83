import type { Command } from 'commander';
import type { PushOptions } from '../../images.js';
import { OUTPUT_FORMAT_FLAGS, outputFormatOption, RESULT_FORMATS } from '../options.js';

/** `opkit image push`: an OCI layout pushed to a registry. */
export function registerImagePush(image: Command): void {
  image
    .command('push [layout] [reference]')
    .description(
      'Push an image or a multi-platform image from an OCI layout (blobs first, each platform’s manifest, ' +
        'then the index under the tag; chunked uploads; retries).',
    )
    .option('--image <ref>', 'destination, instead of the <reference> argument')
    .option('--tag <tag>', 'image inside the layout (also as <layout>:<tag>; default: its only one)')
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
<layout> defaults to dist/images/<opkit.package> of the package.json in the current directory, and the
destination to the layout's tag when that is a full reference (as \`opkit image build\` writes it).

Examples:
  $ opkit image push dist/images/memcached-operator quay.io/acme/memcached-operator:0.2.0
  $ opkit image push dist/images/opkit-catalog:latest 127.0.0.1:5000/opkit/catalog:latest --plain-http
  $ nx run memcached:push --image=quay.io/acme/memcached-operator:0.2.0`,
    )
    .action(async (layout: string | undefined, reference: string | undefined, opts: PushOptions) => {
      const { pushLayout } = await import('../../images.js');
      await pushLayout(layout, reference, opts);
    });
}
