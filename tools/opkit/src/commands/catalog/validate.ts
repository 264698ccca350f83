import type { Command } from 'commander';
import {
  examples,
  OUTPUT_FORMAT_FLAGS,
  outputFormatOption,
  RESULT_FORMATS,
  type ResultFormat,
} from '../options.js';

/** `opkit catalog validate`: a file-based catalog checked as `opm validate` checks it. */
export function registerCatalogValidate(catalog: Command): void {
  catalog
    .command('validate <dir>')
    .description('Validate a file-based catalog as `opm validate` does.')
    .addOption(
      outputFormatOption(
        OUTPUT_FORMAT_FLAGS,
        RESULT_FORMATS,
        'report format (json, yaml: passed and every result)',
      ),
    )
    .addHelpText(
      'after',
      examples([
        'opkit catalog validate catalog/configs',
        'opkit catalog validate catalog/configs -o json',
        'opkit catalog validate catalog/configs -o yaml',
      ]),
    )
    .action(async (dir: string, opts: { output: ResultFormat }) => {
      const { formatValidationResults, validateCatalogDir } = await import('@opkit/olm/catalog/validate');
      const results = await validateCatalogDir(dir);
      const errors = results.filter((r) => r.level === 'error');
      if (opts.output !== 'text') {
        const { writeResult } = await import('../../output.js');
        await writeResult(opts.output, { passed: errors.length === 0, results }, '');
      } else {
        // opm's report of the errors, then opkit's own warnings, which never fail the catalog.
        const report = formatValidationResults(results);
        if (report) process.stderr.write(report.endsWith('\n') ? report : `${report}\n`);
        for (const w of results.filter((r) => r.level === 'warning')) {
          process.stderr.write(`warning: ${w.message}${w.file ? ` (${w.file})` : ''}\n`);
        }
      }
      if (errors.length > 0) process.exitCode = 1;
    });
}
