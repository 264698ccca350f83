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
  // Catalog YAML is mostly long plain scalars (base64 of bundle objects): jump from one character that matters to
  // the next instead of visiting every character.
  let flow = 0;
  let line = 1;
  let quote: typeof DOUBLE_QUOTED | typeof SINGLE_QUOTED | undefined;
  let i = 0;
  for (;;) {
    // At a line start: the indentation bounds block nesting (inside quoted scalars too, as it is measured here).
    let indent = 0;
    while (text.charCodeAt(i) === SPACE) {
      if (++indent > MAX_YAML_DEPTH) return exceeded(line);
      i++;
    }
    // The rest of the line.
    for (;;) {
      const stop = quote ?? PLAIN;
      stop.lastIndex = i;
      const found = stop.exec(text);
      if (found === null) return undefined;
      i = found.index + 1;
      const c = found[0];
      if (c === '\n') break;
      if (quote === DOUBLE_QUOTED && c === '\\') {
        if (text.charCodeAt(i) !== NEWLINE) i++;
      } else if (quote !== undefined) {
        quote = undefined;
      } else if (c === '"') {
        quote = DOUBLE_QUOTED;
      } else if (c === "'") {
        quote = SINGLE_QUOTED;
      } else if (c === '#') {
        if (found.index === 0 || /\s/.test(text[found.index - 1] ?? '')) {
          const end = text.indexOf('\n', i);
          if (end < 0) return undefined;
          i = end + 1;
          break;
        }
      } else if (c === '[' || c === '{') {
        if (++flow > MAX_YAML_DEPTH) return exceeded(line);
      } else if (flow > 0) {
        flow--;
      }
    }
    line++;
  }
}

const SPACE = 0x20;
const NEWLINE = 0x0a;
/** Where a plain (unquoted) stretch can change depth, quoting or line. */
const PLAIN = /[\n"'#[\]{}]/g;
const DOUBLE_QUOTED = /[\n"\\]/g;
const SINGLE_QUOTED = /[\n']/g;

function exceeded(line: number): { readonly line: number; readonly reason: string } {
  return { line, reason: `exceeded max depth of ${MAX_YAML_DEPTH}` };
}
