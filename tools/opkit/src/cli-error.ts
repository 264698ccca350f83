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
