import { type Command, InvalidArgumentError } from 'commander';

const FORMATS = ['text', 'mermaid', 'dot'] as const;

export function registerGraphCommand(program: Command): void {
  program
    .command('graph <catalog>')
    .description(
      'Print a package’s upgrade graph (channels; edges from replaces, skips and skipRange); with --installed, say which version OLM would upgrade to next and why.',
    )
    .requiredOption('--package <name>', 'package to draw')
    .option(
      '--format <format>',
      'text, mermaid or dot',
      (v: string) => {
        if (!(FORMATS as readonly string[]).includes(v))
          throw new InvalidArgumentError('must be text, mermaid or dot');
        return v;
      },
      'text',
    )
    .option('--installed <version>', 'an installed version: explain OLM’s next upgrade from it')
    .option('--channel <name>', 'channel of the subscription (default: the package’s default channel)')
    .action(
      async (
        dir: string,
        opts: { package: string; format: string; installed?: string; channel?: string },
      ) => {
        const { buildUpgradeGraph, loadCatalog, nextUpgrade, renderDot, renderMermaid, renderText } =
          await import('@opkit/olm');
        const catalog = await loadCatalog(dir);
        if (opts.installed) {
          const channel =
            opts.channel ?? catalog.packages.find((p) => p.name === opts.package)?.defaultChannel ?? 'stable';
          const decision = nextUpgrade(catalog, opts.package, channel, opts.installed);
          process.stdout.write(
            `${decision.to ? `${opts.installed} → ${decision.to.version ?? decision.to.name}` : `${opts.installed} stays`} (${decision.reason}): ${decision.explanation}\n`,
          );
          return;
        }
        const graph = buildUpgradeGraph(catalog, opts.package);
        const out =
          opts.format === 'mermaid'
            ? renderMermaid(catalog, { packageName: opts.package })
            : opts.format === 'dot'
              ? renderDot(graph)
              : renderText(graph);
        process.stdout.write(out.endsWith('\n') ? out : `${out}\n`);
      },
    );
}
