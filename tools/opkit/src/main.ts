// The opkit command line: every command parses its options and calls a library function.
import { Command } from 'commander';
import { isReportable } from './cli-error.js';
import { registerBundleCommands } from './commands/bundle.js';
import { registerCatalogCommands } from './commands/catalog.js';
import { registerDeployCommands } from './commands/deploy.js';
import { registerGraphCommand } from './commands/graph.js';
import { registerImageCommands } from './commands/image.js';

const program = new Command('opkit')
  .description('OLM tooling without Docker: bundles, file-based catalogs, upgrade graphs and OCI images.')
  .showHelpAfterError();
registerBundleCommands(program);
registerCatalogCommands(program);
registerDeployCommands(program);
registerGraphCommand(program);
registerImageCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  // Known failures are one line naming the file, field and reason; anything else keeps its stack.
  process.stderr.write(
    `opkit: ${isReportable(error) ? error.message : ((error as Error).stack ?? String(error))}\n`,
  );
  process.exitCode = 1;
}
