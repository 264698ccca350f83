import { RegistryClient } from '@opkit/oci';
import type { Command } from 'commander';

export function registerImageCommands(program: Command): void {
  const image = program.command('image').description('Push and pull OCI images over the distribution API.');
  image
    .command('push <layout> <reference>')
    .description('Push an image from an OCI layout (blobs first, manifest last; chunked uploads; retries).')
    .option('--tag <tag>', 'image inside the layout', 'latest')
    .option('--plain-http', 'talk HTTP, not HTTPS (a registry on loopback)', false)
    .option('--username <name>', 'registry user (with --password or OPKIT_REGISTRY_PASSWORD)')
    .option('--password <secret>', 'registry password')
    .action(
      async (
        layout: string,
        reference: string,
        opts: { tag: string; plainHttp: boolean; username?: string; password?: string },
      ) => {
        const password = opts.password ?? process.env.OPKIT_REGISTRY_PASSWORD;
        const client = new RegistryClient({
          plainHttp: opts.plainHttp,
          credentials: opts.username && password ? () => ({ username: opts.username!, password }) : undefined,
          onProgress: (e) => {
            if (e.bytes === e.total)
              process.stderr.write(`  ${e.digest.slice(0, 19)} ${e.phase} ${e.total} bytes\n`);
          },
        });
        try {
          const result = await client.push(layout, reference, { layoutRef: opts.tag });
          process.stdout.write(`pushed ${reference}@${result.digest}\n`);
        } finally {
          client.close();
        }
      },
    );
}
