// The opkit command line: every command parses its options and calls a library function.
//
// Start-up matters (`opkit --help` should answer at once): registering the commands loads only commander and
// the option definitions; each action imports the libraries it needs (OLM, OCI, gRPC, the Kubernetes
// client, esbuild) when it runs.
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { isReportable } from './cli-error.js';
import { registerBundleCommands } from './commands/bundle.js';
import { registerCatalogCommands } from './commands/catalog.js';
import { registerDeployCommands } from './commands/deploy.js';
import { registerGraphCommand } from './commands/graph.js';
import { registerImageCommands } from './commands/image.js';
import { registerOlmCommands } from './commands/olm.js';

/** The package's version; a bundled copy (the catalog server in an image) has no package.json beside it. */
function cliVersion(): string {
  try {
    return (
      JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
    ).version;
  } catch {
    return 'unknown (bundled)';
  }
}
const version = cliVersion();

const program = new Command('opkit')
  .description('OLM tooling without Docker: bundles, file-based catalogs, upgrade graphs and OCI images.')
  .version(version)
  // Program options only before a command: `bundle generate --version` and `image build --version` are theirs.
  .enablePositionalOptions()
  .showHelpAfterError();
registerBundleCommands(program);
registerCatalogCommands(program);
registerDeployCommands(program);
registerGraphCommand(program);
registerImageCommands(program);
registerOlmCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  // Known failures are one line naming the file, field and reason. Anything else is a bug of ours: one line
  // too, with its stack on request.
  if (isReportable(error)) process.stderr.write(`opkit: ${error.message}\n`);
  else if (process.env.OPKIT_DEBUG)
    process.stderr.write(`opkit: ${(error as Error).stack ?? String(error)}\n`);
  else {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`opkit: unexpected error: ${message} (OPKIT_DEBUG=1 prints where it happened)\n`);
  }
  process.exitCode = 1;
}
