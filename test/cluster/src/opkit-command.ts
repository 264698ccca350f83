import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The `opkit` command's script, found through the `@opkit/cli` package as npm installed it (its `bin` entry),
 * so tests run the command users run without knowing where the package lives in the workspace.
 */
export function opkitScript(): string {
  const manifest = createRequire(import.meta.url).resolve('@opkit/cli/package.json');
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: { opkit: string } };
  return join(dirname(manifest), bin.opkit);
}
