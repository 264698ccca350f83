import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** What `opm validate -o json <dir>` printed. */
export interface OpmValidation {
  readonly passed: boolean;
  readonly message: string;
}

/** Runs `opm validate -o json` (which exits non-zero on failure but still prints the JSON result). */
export async function opmValidate(opm: string, dir: string): Promise<OpmValidation> {
  let stdout: string;
  try {
    ({ stdout } = await run(opm, ['validate', '-o', 'json', dir]));
  } catch (err) {
    stdout = (err as { stdout?: string }).stdout ?? '';
    if (stdout === '') throw err;
  }
  const parsed = JSON.parse(stdout) as { passed: boolean; error?: { message: string } };
  return { passed: parsed.passed, message: parsed.error?.message ?? '' };
}

/** Runs any opm command and returns its stdout. */
export async function opmRun(opm: string, args: readonly string[]): Promise<string> {
  const { stdout } = await run(opm, [...args], { maxBuffer: 256 * 1024 * 1024 });
  return stdout;
}

/**
 * Turns an opm error into an order-independent form: a single-line message stays as is; opm's
 * `invalid index:` tree becomes the sorted list of its root-to-leaf paths (`a > b > leaf`), because opm orders
 * packages, channels and bundles by Go map iteration.
 */
export function normalizeOpmMessage(message: string): string[] {
  if (!message.startsWith('invalid index')) return [message];
  const stack: string[] = [];
  const paths: string[] = [];
  const lines = message.split('\n');
  lines.forEach((line, i) => {
    const m = /^((?:│ {3}| {4})*)(?:├── |└── )?(.*)$/u.exec(line)!;
    const depth = i === 0 ? 0 : m[1]!.length / 4 + 1;
    const text = m[2]!;
    const next = lines[i + 1];
    const nextDepth = next === undefined ? -1 : /^((?:│ {3}| {4})*)/u.exec(next)![1]!.length / 4 + 1;
    stack.length = depth;
    if (nextDepth > depth) stack.push(text.replace(/:$/, ''));
    else paths.push([...stack, text].join(' > '));
  });
  return paths.sort();
}
