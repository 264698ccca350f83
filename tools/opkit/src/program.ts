// The opkit command tree: every command parses its options and calls a library function.
//
// Start-up matters (`opkit --help` should answer at once): registering the commands loads only commander and
// the option definitions; each action imports the libraries it needs (OLM, OCI, gRPC, the Kubernetes
// client, esbuild) when it runs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { registerBundleCommands } from './commands/bundle/index.js';
import { registerCatalogCommands } from './commands/catalog/index.js';
import { registerCompletionCommand } from './commands/completion.js';
import { applyCliContract } from './commands/contract.js';
import { registerDeployCommands } from './commands/deploy/index.js';
import { registerGenerateCommands } from './commands/generate/index.js';
import { registerGraphCommand } from './commands/graph.js';
import { registerImageCommands } from './commands/image/index.js';
import { registerOlmCommands } from './commands/olm.js';
import { examples } from './commands/options.js';
import { registerRunCommands } from './commands/run.js';
import { registerScorecardCommand } from './commands/scorecard.js';
import { registerVersionCommand } from './commands/version.js';
import { CLI_PACKAGE_DIR } from './package-dir.js';

/** The package's version; a bundled copy (the catalog server in an image) has no package.json beside it. */
export function cliVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(CLI_PACKAGE_DIR, 'package.json'), 'utf8')) as { version: string })
      .version;
  } catch {
    return 'unknown (bundled)';
  }
}

/** The `opkit` program with every command registered, not yet parsed. */
export function createProgram(): Command {
  const program = new Command('opkit')
    .description('OLM tooling without Docker: bundles, file-based catalogs, upgrade graphs and OCI images.')
    .version(cliVersion(), '-v, --version', 'print the version of opkit')
    // Program options only before a command: `bundle generate --version` and `image build --version` are theirs.
    .enablePositionalOptions()
    .addHelpText(
      'after',
      examples([
        'opkit bundle validate bundles/memcached-operator/0.2.0',
        'opkit catalog render catalog/configs -o yaml',
        'opkit generate kustomize manifests --operator operators/memcached',
        'opkit image pull quay.io/acme/memcached-operator:0.2.0 ./memcached-layout',
        'opkit <command> --help',
      ]),
    );
  registerBundleCommands(program);
  registerCatalogCommands(program);
  registerDeployCommands(program);
  registerGenerateCommands(program);
  registerGraphCommand(program);
  registerImageCommands(program);
  registerOlmCommands(program);
  registerRunCommands(program);
  registerScorecardCommand(program);
  registerVersionCommand(program, cliVersion);
  registerCompletionCommand(program);
  applyCliContract(program);
  return program;
}
