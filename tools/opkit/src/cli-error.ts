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
 * of URLs, headers and credentials in it are hidden, and klog lines of the Go tools it ran are left out.
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

/**
 * A klog line, as opm, kubectl and other Go tools write to stderr (`I1206 12:00:00.000000 1234 file.go:12] …`):
 * severity, date, time, thread id, source. Their log, not the reason: it never reaches the user's error line.
 */
const KLOG_LINE = /^[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d{6}\s+\d+ [^\s\]]+:\d+\] /;

/** The message without the klog lines a Go tool's output left in it. */
export function withoutKlogLines(message: string): string {
  return message
    .split('\n')
    .filter((line) => !KLOG_LINE.test(line.trim()))
    .join('\n');
}

/** An unexpected error (a bug of ours) as one line: its message, klog lines and secrets removed. */
export function unexpectedLine(error: unknown): string {
  return redact(foldLines(withoutKlogLines(error instanceof Error ? error.message : String(error))));
}

/** `malformed bundle b:\n  x.yaml: r\n  y.yaml: s` → `malformed bundle b: x.yaml: r; y.yaml: s`. */
function foldLines(message: string): string {
  const [head = '', ...items] = withoutKlogLines(message)
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  return items.length === 0 ? head : `${head} ${items.join('; ')}`;
}
