import { redact } from '@opkit/oci/redact';

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
 * A message listing its problems on lines of their own (a malformed bundle) is folded into one line. Secrets
 * of URLs, headers and credentials in it are hidden.
 */
export function reportLine(error: Error): string {
  const problems = (error as { problems?: unknown }).problems;
  const first: unknown = Array.isArray(problems) ? problems[0] : undefined;
  const file = typeof first === 'object' && first !== null ? (first as { file?: unknown }).file : undefined;
  const message = foldLines(error.message);
  if (typeof file === 'string' && file !== '' && !message.includes(file))
    return redact(`${file}: ${message}`);
  return redact(message);
}

/** `malformed bundle b:\n  x.yaml: r\n  y.yaml: s` → `malformed bundle b: x.yaml: r; y.yaml: s`. */
function foldLines(message: string): string {
  const [head = '', ...rest] = message.split('\n').map((line) => line.trim());
  const items = rest.filter((line) => line !== '');
  return items.length === 0 ? head : `${head} ${items.join('; ')}`;
}
