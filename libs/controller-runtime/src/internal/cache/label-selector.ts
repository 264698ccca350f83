/** A parsed label selector; `matches` evaluates it against an object's labels. */
export interface LabelSelector {
  readonly text: string;
  /** The `key=value` requirements: labels a matching object must carry with exactly that value. */
  readonly equalities: readonly (readonly [key: string, value: string])[];
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
}

type Requirement = (labels: Readonly<Record<string, string>>) => boolean;
type Parsed = { readonly test: Requirement; readonly equality?: readonly [string, string] };

/** Thrown for selector text the API server would reject too. */
export class InvalidSelectorError extends Error {
  readonly code = 'RUNTIME_INVALID_SELECTOR';
}

/**
 * Parses the label selector syntax the API server accepts: `a=b`, `a==b`, `a!=b`, `a in (x,y)`,
 * `a notin (x)`, `a` and `!a`, joined by commas.
 */
export function parseLabelSelector(text: string): LabelSelector {
  const requirements: Parsed[] = [];
  // Split on commas that are not inside parentheses.
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  if (current.trim()) parts.push(current);
  for (const raw of parts) requirements.push(parseRequirement(raw.trim(), text));
  return {
    text,
    equalities: requirements.flatMap((r) => (r.equality ? [r.equality] : [])),
    matches: (labels) => requirements.every((r) => r.test(labels ?? {})),
  };
}

/** A selector from `matchLabels` (the common case in code). */
export function selectorFromLabels(labels: Readonly<Record<string, string>>): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

function parseRequirement(part: string, text: string): Parsed {
  const set = part.match(/^([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)$/);
  if (set) {
    const [, key, op, list] = set as unknown as [string, string, string, string];
    const values = new Set(
      list
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean),
    );
    return {
      test:
        op === 'in'
          ? (l) => Object.hasOwn(l, key) && values.has(l[key]!)
          : (l) => !Object.hasOwn(l, key) || !values.has(l[key]!),
    };
  }
  const equality = part.match(/^([\w./-]+)\s*(!=|==|=)\s*([\w.-]*)$/);
  if (equality) {
    const [, key, op, value] = equality as unknown as [string, string, string, string];
    return op === '!='
      ? { test: (l) => !Object.hasOwn(l, key) || l[key] !== value }
      : { test: (l) => Object.hasOwn(l, key) && l[key] === value, equality: [key, value] };
  }
  const absent = part.match(/^!\s*([\w./-]+)$/);
  if (absent) {
    const key = absent[1]!;
    return { test: (l) => !Object.hasOwn(l, key) };
  }
  const present = part.match(/^([\w./-]+)$/);
  if (present) {
    const key = present[1]!;
    return { test: (l) => Object.hasOwn(l, key) };
  }
  throw new InvalidSelectorError(`invalid label selector "${text}": cannot parse "${part}"`);
}
