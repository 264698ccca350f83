import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A problem as operator-sdk reports it (`-o json-alpha1` output), with `<bundle>` for the bundle path. */
export interface ExpectedProblem {
  readonly level: 'error' | 'warning';
  /** Exact message. */
  readonly message?: string;
  /** Regular expression, for the few upstream messages that print a Go pointer. */
  readonly pattern?: string;
  readonly note?: string;
}

/** `expected.json` of a corpus case. */
export interface ExpectedCase {
  readonly meta: {
    readonly description: string;
    /** `--select-optional` the case was validated with. */
    readonly selectOptional: string;
    readonly optionalValues?: Record<string, string>;
  };
  /** operator-sdk's verdict. */
  readonly passed: boolean;
  /** Where operator-sdk stops before validating (it exits with this error). */
  readonly fatal?: string;
  /** opm `ValidateBundleFormat` errors (one combined message upstream; unordered). */
  readonly format?: readonly string[];
  /** Everything else operator-sdk prints, unordered. */
  readonly problems: readonly ExpectedProblem[];
  /** Findings of opkit's own validators (not upstream). */
  readonly opkit?: {
    readonly selectOptional: string;
    readonly note: string;
    readonly problems: readonly ExpectedProblem[];
  };
}

/** Directory of the corpus. */
export const CORPUS_DIR = fileURLToPath(new URL('./corpus/', import.meta.url));

/** One corpus case. */
export interface CorpusCase {
  readonly name: string;
  /** Path relative to the working directory, as operator-sdk would be given it. */
  readonly path: string;
  readonly expected: ExpectedCase;
}

/** Every case of the corpus, sorted by name. */
export function corpusCases(): CorpusCase[] {
  return readdirSync(CORPUS_DIR, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()
    .map((name) => ({
      name,
      path: relative(process.cwd(), join(CORPUS_DIR, name)),
      expected: JSON.parse(readFileSync(join(CORPUS_DIR, name, 'expected.json'), 'utf8')) as ExpectedCase,
    }));
}

/** Replaces the `<bundle>` placeholder by the case's path. */
export function withPath(text: string, path: string): string {
  return text.replaceAll('<bundle>', path);
}

/** True when an actual `(level, message)` satisfies an expected problem. */
export function matches(
  expected: ExpectedProblem,
  actual: { type: string; message: string },
  path: string,
): boolean {
  if (expected.level !== actual.type) return false;
  if (expected.message !== undefined) return withPath(expected.message, path) === actual.message;
  return expected.pattern !== undefined && new RegExp(withPath(expected.pattern, path)).test(actual.message);
}

/**
 * Pairs expected problems with actual outputs (multiset, order-insensitive: upstream iterates Go maps).
 * Returns what is missing and what is unexpected.
 */
export function compareProblems(
  expected: readonly ExpectedProblem[],
  actual: readonly { type: string; message: string }[],
  path: string,
): { missing: ExpectedProblem[]; unexpected: { type: string; message: string }[] } {
  const left = [...actual];
  const missing: ExpectedProblem[] = [];
  for (const e of expected) {
    const i = left.findIndex((a) => matches(e, a, path));
    if (i < 0) missing.push(e);
    else left.splice(i, 1);
  }
  return { missing, unexpected: left };
}
