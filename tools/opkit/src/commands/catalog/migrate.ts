import type { Command } from 'commander';
import { OUTPUT_FORMAT_FLAGS, outputFormatOption } from '../options.js';
import {
  MIGRATE_LEVEL_HELP,
  type MigrationLevelName,
  migrateLevelOption,
  migrationLevel,
} from './migrate-level.js';
import { registryFor } from './render.js';

/** `opkit catalog migrate`: a catalog written as one directory per package, as `opm migrate` writes it. */
export function registerCatalogMigrate(catalog: Command): void {
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
  $ opkit catalog migrate catalog/configs migrated-catalog -o yaml --migrate-level bundle-object-to-csv-metadata`,
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
        const { migrateSource } = await import('@opkit/olm/action/render');
        const registry = await registryFor([source], opts.plainHttp);
        const written = await migrateSource(source, outDir, opts.output, {
          plainHttp: opts.plainHttp,
          ...(registry === undefined ? {} : { registry }),
          ...(await migrationLevel(opts.migrateLevel)),
        }).finally(() => registry?.close());
        process.stderr.write(`wrote ${outDir}: ${written.length} files\n`);
      },
    );
}
