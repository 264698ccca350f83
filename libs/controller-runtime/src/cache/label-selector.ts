/** A parsed label selector; `matches` evaluates it against an object's labels. */
export interface LabelSelector {
  readonly text: string;
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
}

type Requirement = (labels: Readonly<Record<string, string>>) => boolean;

/** Thrown for selector text the API server would reject too. */
export class InvalidSelectorError extends Error {
  readonly code = 'RUNTIME_INVALID_SELECTOR';
}

/**
 * Parses the label selector syntax the API server accepts: `a=b`, `a==b`, `a!=b`, `a in (x,y)`,
 * `a notin (x)`, `a` and `!a`, joined by commas.
 */
export function parseLabelSelector(text: string): LabelSelector {
  const requirements: Requirement[] = [];
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
  for (const raw of parts) {
    const part = raw.trim();
    let m: RegExpMatchArray | null;
    if ((m = part.match(/^([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)$/))) {
      const [, key, op, list] = m as unknown as [string, string, string, string];
      const values = new Set(list.split(',').map((v) => v.trim()).filter(Boolean));
      requirements.push(
        op === 'in' ? (l) => key in l && values.has(l[key]!) : (l) => !(key in l) || !values.has(l[key]!),
      );
    } else if ((m = part.match(/^([\w./-]+)\s*(!=|==|=)\s*([\w.-]*)$/))) {
      const [, key, op, value] = m as unknown as [string, string, string, string];
      requirements.push(op === '!=' ? (l) => l[key] !== value : (l) => l[key] === value);
    } else if ((m = part.match(/^!\s*([\w./-]+)$/))) {
      const key = m[1]!;
      requirements.push((l) => !(key in l));
    } else if ((m = part.match(/^([\w./-]+)$/))) {
      const key = m[1]!;
      requirements.push((l) => key in l);
    } else {
      throw new InvalidSelectorError(`invalid label selector "${text}": cannot parse "${part}"`);
    }
  }
  return { text, matches: (labels) => requirements.every((r) => r(labels ?? {})) };
}

/** A selector from `matchLabels` (the common case in code). */
export function selectorFromLabels(labels: Readonly<Record<string, string>>): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}
