import type { CatalogModel } from '@opkit/olm/catalog/model';
import { type Command, Option } from 'commander';
import { CliError } from '../../cli-error.js';
import { examples, OUTPUT_FORMAT_FLAGS, oneOf, outputFormatOption } from '../options.js';

const FORMATS = ['text', 'json', 'yaml', 'markdown'] as const;
const OLM_RULES = ['both', 'v0', 'v1'] as const;
type OlmRules = (typeof OLM_RULES)[number];

interface UpgradePathsOptions {
  readonly previous?: string;
  readonly package?: string;
  readonly channel?: string;
  readonly olm: OlmRules;
  readonly plainHttp: boolean;
  readonly output: (typeof FORMATS)[number];
}

/** Whether a package of the catalog (the one asked for, if any) has the channel asked for. */
function hasChannel(model: CatalogModel, opts: UpgradePathsOptions): boolean {
  return [...model.packages.values()].some(
    (pkg) =>
      (opts.package === undefined || pkg.name === opts.package) &&
      opts.channel !== undefined &&
      pkg.channels.get(opts.channel)?.blob !== undefined,
  );
}

/**
 * `opkit catalog upgrade-paths`: where repeated upgrades take every installed version under OLM v0's and OLM
 * v1's rules; with `--previous`, what the change from that catalog does to those paths.
 */
export function registerCatalogUpgradePaths(catalog: Command): void {
  catalog
    .command('upgrade-paths <catalog>')
    .description(
      'Print the upgrade path of every installed version to its channel head under OLM v0 (Subscriptions) and OLM v1 (ClusterExtensions); with --previous, report what the change from that catalog breaks (exit code 1 on an error finding).',
    )
    .option('--previous <catalog>', 'the catalog before the change (directory, OCI layout or image)')
    .option('--package <name>', 'only this package')
    .option('--channel <name>', 'only this channel (and, for v1, not the all-channels selection)')
    .addOption(
      new Option('--olm <rules>', 'resolution rules: v0, v1 or both')
        .argParser(oneOf(OLM_RULES))
        .default('both'),
    )
    .addOption(outputFormatOption(OUTPUT_FORMAT_FLAGS, FORMATS, 'output format'))
    .option('--plain-http', 'pull image references over HTTP, not HTTPS (a registry on loopback)', false)
    .addHelpText(
      'after',
      examples(
        [
          'opkit catalog upgrade-paths catalog/configs',
          'opkit catalog upgrade-paths catalog/configs --package memcached-operator --olm v1',
          'opkit catalog upgrade-paths catalog/configs --package redis-operator --channel stable-v0 -o markdown',
          'opkit catalog upgrade-paths catalog/configs --previous catalog/configs -o json',
        ],
        [
          'A path ends at a head, or is stuck (nothing is offered from a bundle), loops, or fails to resolve.',
          'OLM v1 paths are given for each channel alone and for all channels, its default.',
        ].join('\n'),
      ),
    )
    .action(async (source: string, opts: UpgradePathsOptions) => {
      const { runStoppable } = await import('../../stop-signals.js');
      await runStoppable((signal) => printUpgradePaths(source, opts, signal));
    });
}

/** Loads the catalog (and the one before it), then prints the paths or their changes; `signal` stops loading. */
async function printUpgradePaths(
  source: string,
  opts: UpgradePathsOptions,
  signal: AbortSignal,
): Promise<void> {
  const { resolveCatalogSource } = await import('../../catalog-source.js');
  const { convertToModel } = await import('@opkit/olm/catalog/model');
  const { loadCatalog } = await import('@opkit/olm/catalog/declcfg');
  const { renderPaths, upgradePathChanges, upgradePaths } = await import('@opkit/olm/release');
  const load = async (where: string) => {
    const resolved = await resolveCatalogSource(where, { plainHttp: opts.plainHttp, signal });
    try {
      return convertToModel(await loadCatalog(resolved.dir));
    } finally {
      await resolved.dispose();
    }
  };
  const next = await load(source);
  const previous = opts.previous === undefined ? undefined : await load(opts.previous);
  if (
    opts.package !== undefined &&
    !next.packages.has(opts.package) &&
    !previous?.packages.has(opts.package)
  ) {
    throw new CliError('OPKIT_ARGUMENT_INVALID', `--package ${opts.package}: no such package in ${source}`);
  }
  if (opts.channel !== undefined && !hasChannel(next, opts) && !(previous && hasChannel(previous, opts))) {
    throw new CliError(
      'OPKIT_ARGUMENT_INVALID',
      `--channel ${opts.channel}: no such channel${opts.package === undefined ? '' : ` of package ${opts.package}`} in ${source}`,
    );
  }
  const rules = opts.olm === 'both' ? (['v0', 'v1'] as const) : ([opts.olm] as const);
  const filter = {
    ...(opts.package === undefined ? {} : { package: opts.package }),
    ...(opts.channel === undefined ? {} : { channel: opts.channel }),
  };
  if (previous === undefined) {
    const paths = rules.flatMap((r) => upgradePaths(next, r, filter));
    process.stdout.write(renderPaths({ paths }, opts.output));
    return;
  }
  const changes = upgradePathChanges(previous, next, { ...filter, rules });
  const paths = rules.flatMap((r) => changes.next[r]);
  process.stdout.write(renderPaths({ paths, findings: changes.findings }, opts.output));
  if (changes.findings.some((f) => f.severity === 'error')) process.exitCode = 1;
}
