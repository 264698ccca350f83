import { once } from 'node:events';
import { existsSync } from 'node:fs';
import type { Writable } from 'node:stream';
import type { RegistryClient } from '@opkit/oci';
import type { Command } from 'commander';
import { OUTPUT_FORMAT_FLAGS, outputFormatOption } from '../options.js';
import {
  MIGRATE_LEVEL_HELP,
  type MigrationLevelName,
  migrateLevelOption,
  migrationLevel,
} from './migrate-level.js';

/**
 * The CLI's registry client when a source may be an image reference (not a path that exists; a layout's
 * `<dir>:<tag>` counts too, harmlessly): directories, what most renders read, load no registry code.
 */
export async function registryFor(
  sources: readonly string[],
  plainHttp: boolean,
): Promise<RegistryClient | undefined> {
  if (sources.every((source) => existsSync(source))) return undefined;
  const { cliRegistryClient } = await import('../../registry-client.js');
  return cliRegistryClient({ plainHttp });
}

const outputClosed = (): Error => new Error('the output was closed before the catalog was written whole');

/**
 * Resolves when `out` can take more; fails when it closes or errs first, which a stream that will never drain
 * (a pipe whose reader went away) does instead of draining.
 */
async function drained(out: Writable): Promise<void> {
  const stop = new AbortController();
  const closed = async (): Promise<never> => {
    await once(out, 'close', { signal: stop.signal });
    throw outputClosed();
  };
  try {
    // `once` rejects with the stream's error, should it err first.
    await Promise.race([once(out, 'drain', { signal: stop.signal }), closed()]);
  } finally {
    stop.abort();
  }
}

/**
 * How much text {@link writeInChunks} gathers before it writes, and the size from which a document is written on
 * its own. Below V8's large-object size (128 KiB), so that neither a chunk nor the flat copy a write makes of it
 * outlives the next young-generation collection: larger, each write left its text in the old generation until a
 * full collection, which a render of a catalog rarely reaches, and the peak grew by the size of the output.
 */
const CHUNK_CHARS = 1 << 16;

/**
 * Writes documents as they are encoded, the small ones gathered into chunks of about {@link CHUNK_CHARS},
 * waiting for the stream to drain when it asks to: the output of a catalog with manifests inline is as large as
 * the catalog, and held whole, as one string and again as its UTF-8 bytes, it would double what the command
 * needs.
 */
export async function writeInChunks(out: Writable, documents: Iterable<string>): Promise<void> {
  // An error between writes (EPIPE once the reader is gone) fails the next write, not the process.
  let failure: Error | undefined;
  const failed = (err: Error): void => {
    failure ??= err;
  };
  out.on('error', failed);
  const write = async (text: string): Promise<void> => {
    if (failure !== undefined) throw failure;
    if (out.destroyed) throw outputClosed();
    if (!out.write(text)) await drained(out);
  };
  let chunk = '';
  try {
    for (const document of documents) {
      // A large document is already one flat string: written as it is, not copied into a chunk.
      if (document.length >= CHUNK_CHARS) {
        if (chunk.length > 0) await write(chunk);
        chunk = '';
        await write(document);
        continue;
      }
      chunk += document;
      if (chunk.length >= CHUNK_CHARS) {
        const text = chunk;
        chunk = '';
        await write(text);
      }
    }
    if (chunk.length > 0) await write(chunk);
  } finally {
    out.off('error', failed);
  }
}

/** `opkit catalog render`: catalogs and bundles printed as one FBC stream, as `opm render` prints them. */
export function registerCatalogRender(catalog: Command): void {
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
        const { renderSourcesDocuments } = await import('@opkit/olm/action/render');
        const registry = await registryFor(sources, opts.plainHttp);
        try {
          const documents = await renderSourcesDocuments(sources, opts.output, {
            plainHttp: opts.plainHttp,
            ...(registry === undefined ? {} : { registry }),
            ...(await migrationLevel(opts.migrateLevel)),
          });
          await writeInChunks(process.stdout, documents);
        } finally {
          registry?.close();
        }
      },
    );
}
