// The `opkit` entry point: parses the command line and turns failures into one line and exit code 1.
import { redact } from '@opkit/oci/redact';
import { isReportable, reportLine, unexpectedLine } from './cli-error.js';
import { createProgram } from './program.js';

try {
  await createProgram().parseAsync(process.argv);
} catch (error) {
  // Known failures are one line naming the file, field and reason. Anything else is a bug of ours: one line
  // too, with its stack on request.
  if (isReportable(error)) process.stderr.write(`opkit: ${reportLine(error)}\n`);
  else if (process.env.OPKIT_DEBUG)
    process.stderr.write(`opkit: ${redact((error as Error).stack ?? String(error))}\n`);
  else {
    const message = unexpectedLine(error);
    process.stderr.write(`opkit: unexpected error: ${message} (OPKIT_DEBUG=1 prints where it happened)\n`);
  }
  process.exitCode = 1;
}
