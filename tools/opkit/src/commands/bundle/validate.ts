import type { Command } from 'commander';
import { examples, OUTPUT_FORMAT_FLAGS, outputFormatOption } from '../options.js';

/** `opkit bundle validate`: a bundle checked as `operator-sdk bundle validate` checks it. */
export function registerBundleValidate(bundle: Command): void {
  bundle
    .command('validate <dir>')
    .description(
      'Validate a bundle as `operator-sdk bundle validate` does (errors and warnings, same messages).',
    )
    .addOption(
      outputFormatOption(
        OUTPUT_FORMAT_FLAGS,
        ['text', 'json', 'json-alpha1'],
        'report format (json is operator-sdk’s json-alpha1)',
      ),
    )
    .option('--select-optional <selector>', 'also run optional validators, e.g. name=operatorhub')
    .addHelpText(
      'after',
      examples([
        'opkit bundle validate bundles/memcached-operator/0.2.0',
        'opkit bundle validate ./bundle --select-optional name=operatorhub -o json-alpha1',
      ]),
    )
    .action(async (dir: string, opts: { output: string; selectOptional?: string }) => {
      const { formatJsonAlpha1, formatText, validateBundleDir } = await import('@opkit/olm');
      const report = validateBundleDir(dir, { selectOptional: opts.selectOptional });
      process.stdout.write(opts.output === 'text' ? formatText(report) : formatJsonAlpha1(report));
      if (!report.passed) process.exitCode = 1;
    });
}
