/**
 * The deepest nesting a YAML document may have before it is parsed. go-yaml refuses more than 10,000 levels;
 * the `yaml` package composes recursively and runs out of stack well before that (and slowly, on megabytes of
 * brackets), so documents are measured first and refused beyond this bound. Real manifests nest a few dozen
 * levels.
 */
export const MAX_YAML_DEPTH = 500;

/**
 * Measures `text` without parsing it: the deepest flow nesting (`[`, `{` outside quotes and comments) and the
 * widest indentation, which bounds block nesting. Returns the line where a document goes over
 * {@link MAX_YAML_DEPTH} and go-yaml's wording for it, or `undefined` when it is within bounds.
 */
export function yamlDepthError(text: string): { readonly line: number; readonly reason: string } | undefined {
  let flow = 0;
  let line = 1;
  let lineStart = true;
  let indent = 0;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') {
      line++;
      lineStart = true;
      indent = 0;
      continue;
    }
    if (lineStart) {
      if (c === ' ') {
        if (++indent > MAX_YAML_DEPTH) return exceeded(line);
        continue;
      }
      lineStart = false;
    }
    if (quote !== undefined) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(text[i - 1] ?? ''))) {
      while (i + 1 < text.length && text[i + 1] !== '\n') i++;
    } else if (c === '[' || c === '{') {
      if (++flow > MAX_YAML_DEPTH) return exceeded(line);
    } else if ((c === ']' || c === '}') && flow > 0) flow--;
  }
  return undefined;
}

function exceeded(line: number): { readonly line: number; readonly reason: string } {
  return { line, reason: `exceeded max depth of ${MAX_YAML_DEPTH}` };
}
