import type { Command } from 'commander';
import { OLM_VERSION, OPM_VERSION } from '../targets.js';
import {
  examples,
  OUTPUT_FORMAT_FLAGS,
  outputFormatOption,
  RESULT_FORMATS,
  type ResultFormat,
} from './options.js';

/** What `opkit version` reports. */
export interface VersionReport {
  /** The CLI's package version. */
  readonly opkit: string;
  /** The Node.js running it. */
  readonly node: string;
  /** The upstream releases it reproduces. */
  readonly targets: { readonly olm: string; readonly opm: string };
}

/** `opkit version`: the CLI's version, the Node running it, and the OLM and opm releases it targets. */
export function registerVersionCommand(program: Command, cliVersion: () => string): void {
  program
    .command('version')
    .description(
      'Print the version of opkit, of the Node.js running it, and the OLM and opm releases it targets.',
    )
    .addOption(outputFormatOption(OUTPUT_FORMAT_FLAGS, RESULT_FORMATS, 'output format'))
    .addHelpText('after', examples(['opkit version', 'opkit version -o json']))
    .action(async (opts: { output: ResultFormat }) => {
      const report: VersionReport = {
        opkit: cliVersion(),
        node: process.versions.node,
        targets: { olm: OLM_VERSION, opm: OPM_VERSION },
      };
      const { writeResult } = await import('../output.js');
      await writeResult(
        opts.output,
        report,
        `opkit ${report.opkit}\nnode ${report.node}\nolm ${report.targets.olm} (olm install)\nopm ${report.targets.opm} (catalogs, render, serve)\n`,
      );
    });
}
