/** A failure the CLI reports as one line (file, field, reason) and exit code 1, without a stack trace. */
export class CliError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'CliError';
    this.code = code;
  }
}

/** Whether an error is one of ours with a stable code (printed as one line) rather than a bug (stack kept). */
export function isReportable(error: unknown): error is Error & { code: string } {
  return (
    error instanceof Error &&
    typeof (error as { code?: unknown }).code === 'string' &&
    !(error instanceof TypeError)
  );
}

/**
 * The one line for a reportable error. A catalog that failed to load carries opm's words for the first broken
 * file, which often do not name it (`document contains excessive aliasing`); the file is put in front then.
 */
export function reportLine(error: Error): string {
  const problems = (error as { problems?: unknown }).problems;
  const first: unknown = Array.isArray(problems) ? problems[0] : undefined;
  const file = typeof first === 'object' && first !== null ? (first as { file?: unknown }).file : undefined;
  if (typeof file === 'string' && file !== '' && !error.message.includes(file))
    return `${file}: ${error.message}`;
  return error.message;
}
