import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import { examples, OUTPUT_FORMAT_FLAGS, outputFormatOption } from './options.js';

const FORMATS = ['text', 'json', 'yaml', 'xunit'] as const;

export function registerScorecardCommand(program: Command): void {
  program
    .command('scorecard <bundle-dir>')
    .description(
      'Run operator-sdk scorecard’s basic and OLM test suites on a bundle directory, as its scorecard config lists them.',
    )
    .option('--config <file>', 'scorecard config to use instead of the bundle’s tests/scorecard/config.yaml')
    .option(
      '-l, --selector <selector>',
      'label selector of the tests to run, as operator-sdk scorecard takes it: suite=olm, test=olm-spec-descriptors-test, suite in (basic,olm)',
      '',
    )
    .addOption(outputFormatOption(OUTPUT_FORMAT_FLAGS, FORMATS, 'output format'))
    .addHelpText(
      'after',
      examples(
        [
          'opkit scorecard bundles/memcached-operator/0.3.0',
          'opkit scorecard bundles/memcached-operator/0.3.0 --selector suite=olm -o json',
          'opkit scorecard bundles/redis-operator/0.2.0 -l test=basic-check-spec-test -o xunit',
          'opkit scorecard bundles/memcached-operator/0.3.0 -l suite=olm -o yaml',
          'opkit scorecard bundles/memcached-operator/0.1.0 --config bundles/memcached-operator/0.3.0/tests/scorecard/config.yaml',
        ],
        'The built-in tests (entrypoint [scorecard-test, <test>]: basic-check-spec, olm-bundle-validation,\n' +
          'olm-crds-have-validation, olm-crds-have-resources, olm-spec-descriptors, olm-status-descriptors) run\n' +
          'in-process on the bundle files: no cluster, no test images, no pods. Any other entrypoint is reported\n' +
          'as an error. The exit code is 1 when any test does not pass.\n\n' +
          '--selector matches the labels of the config’s tests as Kubernetes label selectors do, as operator-sdk\n' +
          'scorecard matches them; its configs label each test test=<name>-test. A selector that selects no test\n' +
          'is an error listing the labels there are.',
      ),
    )
    .action(
      async (dir: string, opts: { config?: string; selector: string; output: (typeof FORMATS)[number] }) => {
        const olm = await import('@opkit/olm');
        let config: import('@opkit/olm').ScorecardConfiguration;
        try {
          config = olm.readScorecardConfig(dir, opts.config);
        } catch (e) {
          if (e instanceof olm.ScorecardConfigError) throw new CliError('OPKIT_ARGUMENT_INVALID', e.message);
          throw e;
        }
        const list = olm.runScorecard(dir, config, opts.selector);
        if (list.items.length === 0) {
          const labels = [
            ...new Set(
              config.stages.flatMap((stage) =>
                stage.tests.flatMap((test) => Object.entries(test.labels).map(([k, v]) => `${k}=${v}`)),
              ),
            ),
          ];
          throw new CliError(
            'OPKIT_ARGUMENT_INVALID',
            `no tests selected by selector "${opts.selector}"; the tests' labels are: ${labels.join(', ') || '(none)'}`,
          );
        }
        if (opts.output === 'xunit') process.stdout.write(olm.formatScorecardXunit(list));
        else {
          const { writeResult } = await import('../output.js');
          await writeResult(opts.output, list, olm.formatScorecardText(list));
        }
        if (!olm.scorecardPassed(list)) process.exitCode = 1;
      },
    );
}
