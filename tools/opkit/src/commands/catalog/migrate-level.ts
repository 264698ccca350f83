// `--migrate-level` of `catalog render` and `catalog migrate`: opm's migrations, by name.
import type { MigrationLevel } from '@opkit/olm/catalog';
import { Option } from 'commander';

/** What `--migrate-level` accepts (opm v1.73's migrations, and `all`). */
export const MIGRATION_LEVEL_NAMES = ['none', 'bundle-object-to-csv-metadata', 'all'] as const;
export type MigrationLevelName = (typeof MIGRATION_LEVEL_NAMES)[number];

export const MIGRATE_LEVEL_HELP = `
--migrate-level runs opm's migrations up to the one named: bundle-object-to-csv-metadata replaces the
olm.bundle.object properties of every bundle that has an image by one olm.csv.metadata (OLM then pulls the
manifests from the image); all runs every migration.
`;

export function migrateLevelOption(): Option {
  return new Option('--migrate-level <level>', "the last of opm's migrations to run").choices(
    MIGRATION_LEVEL_NAMES,
  );
}

/** The render options `--migrate-level` asks for; the migrations' code loads only when it is given. */
export async function migrationLevel(
  name: MigrationLevelName | undefined,
): Promise<{ migrateLevel?: MigrationLevel }> {
  if (name === undefined) return {};
  const { parseMigrationLevel } = await import('@opkit/olm/catalog');
  return { migrateLevel: parseMigrationLevel(name) };
}
