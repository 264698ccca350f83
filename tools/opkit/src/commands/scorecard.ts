import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import { examples, OUTPUT_FORMAT_FLAGS, outputFormatOption } from './options.js';

const FORMATS = ['text', 'json', 'xunit'] as const;

export function registerScorecardCommand(program: Command): void {
  program
    .command('scorecard <bundle-dir>')
    .description(
      'Run operator-sdk scorecard’s basic and OLM test suites on a bundle directory, as its scorecard config lists them.',
    )
    .option('--config <file>', 'scorecard config to use instead of the bundle’s tests/scorecard/config.yaml')
    .option(
      '-l, --selector <selector>',
      'label selector of the tests to run, e.g. suite=basic or test=olm-spec-descriptors',
      '',
    )
    .addOption(outputFormatOption(OUTPUT_FORMAT_FLAGS, FORMATS, 'output format'))
    .addHelpText(
      'after',
      examples(
        [
          'opkit scorecard bundles/memcached-operator/0.3.0',
          'opkit scorecard bundles/memcached-operator/0.3.0 --selector suite=olm -o json',
          'opkit scorecard bundles/redis-operator/0.2.0 -l test=basic-check-spec -o xunit',
          'opkit scorecard dist/bundle --config tests/scorecard/config.yaml',
        ],
        'The built-in tests (entrypoint [scorecard-test, <test>]: basic-check-spec, olm-bundle-validation,\n' +
          'olm-crds-have-validation, olm-crds-have-resources, olm-spec-descriptors, olm-status-descriptors) run\n' +
          'in-process on the bundle files: no cluster, no test images, no pods. Any other entrypoint is reported\n' +
          'as an error. The exit code is 1 when any test does not pass.',
      ),
    )
    .action(async (dir: string, opts: { config?: string; selector: string; output: string }) => {
      const olm = await import('@opkit/olm');
      let config: import('@opkit/olm').ScorecardConfiguration;
      try {
        config = olm.readScorecardConfig(dir, opts.config);
      } catch (e) {
        if (e instanceof olm.ScorecardConfigError) throw new CliError('OPKIT_ARGUMENT_INVALID', e.message);
        throw e;
      }
      const list = olm.runScorecard(dir, config, opts.selector);
      if (list.items.length === 0)
        throw new CliError('OPKIT_ARGUMENT_INVALID', `no tests selected by selector "${opts.selector}"`);
      const text =
        opts.output === 'json'
          ? `${JSON.stringify(list, null, 2)}\n`
          : opts.output === 'xunit'
            ? olm.formatScorecardXunit(list)
            : olm.formatScorecardText(list);
      process.stdout.write(text);
      if (!olm.scorecardPassed(list)) process.exitCode = 1;
    });
}
