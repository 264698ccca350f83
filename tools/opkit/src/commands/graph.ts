import { type Command, Option } from 'commander';
import { CliError } from '../cli-error.js';
import { examples, OUTPUT_FORMAT_FLAGS, oneOf, outputFormatOption } from './options.js';

const FORMATS = ['text', 'mermaid', 'dot'] as const;

export function registerGraphCommand(program: Command): void {
  program
    .command('graph <catalog>')
    .description(
      'Print a package’s upgrade graph (channels; edges from replaces, skips and skipRange); with --installed, say which version OLM would upgrade to next and why.',
    )
    .requiredOption('--package <name>', 'package to draw')
    .addOption(outputFormatOption(OUTPUT_FORMAT_FLAGS, FORMATS, 'output format'))
    // The name of earlier releases, kept so scripts keep working.
    .addOption(new Option('--format <format>').argParser(oneOf(FORMATS)).hideHelp())
    .option('--installed <version>', 'an installed version: explain OLM’s next upgrade from it')
    .option('--channel <name>', 'channel of the subscription (default: the package’s default channel)')
    .addHelpText(
      'after',
      examples([
        'opkit graph catalog/configs --package memcached-operator',
        'opkit graph catalog/configs --package memcached-operator -o mermaid',
        'opkit graph catalog/configs --package memcached-operator --installed 0.1.0 --channel alpha',
      ]),
    )
    .action(
      async (
        dir: string,
        opts: { package: string; output: string; format?: string; installed?: string; channel?: string },
      ) => {
        const format = opts.format ?? opts.output;
        // The explanation of an upgrade is a sentence, not a graph; a channel only matters for it.
        if (opts.installed !== undefined && format !== 'text')
          throw new CliError(
            'OPKIT_ARGUMENT_INVALID',
            `--installed explains in text: -o ${format} draws the graph, without --installed`,
          );
        if (opts.installed === undefined && opts.channel !== undefined)
          throw new CliError(
            'OPKIT_ARGUMENT_INVALID',
            '--channel picks the subscription’s channel for --installed: give --installed too',
          );
        const {
          buildUpgradeGraph,
          convertToModel,
          loadCatalog,
          nextUpgrade,
          renderDot,
          renderMermaid,
          renderText,
        } = await import('@opkit/olm');
        const catalog = await loadCatalog(dir);
        if (opts.installed) {
          const channel =
            opts.channel ?? catalog.packages.find((p) => p.name === opts.package)?.defaultChannel ?? 'stable';
          const decision = nextUpgrade(convertToModel(catalog), opts.package, channel, opts.installed);
          process.stdout.write(
            `${decision.to ? `${opts.installed} → ${decision.to.version ?? decision.to.name}` : `${opts.installed} stays`} (${decision.reason}): ${decision.explanation}\n`,
          );
          return;
        }
        const graph = buildUpgradeGraph(convertToModel(catalog), opts.package);
        const out =
          format === 'mermaid'
            ? renderMermaid(catalog, { packageName: opts.package })
            : format === 'dot'
              ? renderDot(graph)
              : renderText(graph);
        process.stdout.write(out.endsWith('\n') ? out : `${out}\n`);
      },
    );
}
