import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_YAML_DEPTH, yamlDepthError } from './yaml-depth.js';
import { yamlDocumentToJson } from './yaml-json.js';

const flow = (depth: number) => `x: ${'['.repeat(depth)}${']'.repeat(depth)}\n`;
const block = (depth: number) =>
  `${Array.from({ length: depth }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n')} v\n`;

describe('yamlDepthError', () => {
  it('lets documents nest up to the bound, in flow and block style', () => {
    expect(yamlDepthError(flow(MAX_YAML_DEPTH))).toBeUndefined();
    expect(yamlDepthError(block(MAX_YAML_DEPTH))).toBeUndefined();
  });

  it('refuses one level more, naming the line', () => {
    expect(yamlDepthError(`a: 1\n${flow(MAX_YAML_DEPTH + 1)}`)).toEqual({
      line: 2,
      reason: `exceeded max depth of ${MAX_YAML_DEPTH}`,
    });
    expect(yamlDepthError(block(MAX_YAML_DEPTH + 2))?.line).toBe(MAX_YAML_DEPTH + 2);
  });

  it('does not count brackets in quoted scalars or comments', () => {
    const brackets = '['.repeat(MAX_YAML_DEPTH + 1);
    expect(yamlDepthError(`a: "${brackets}"\nb: '${brackets}'\nc: 1 # ${brackets}\n`)).toBeUndefined();
    expect(yamlDepthError(`a: "quote \\" ${brackets}"\n`)).toBeUndefined();
  });

  it('is measured before parsing: megabytes of brackets never reach the parser', () => {
    expect(() => yamlDocumentToJson(flow(1_000_000))).toThrow(
      `error converting YAML to JSON: yaml: line 1: exceeded max depth of ${MAX_YAML_DEPTH}`,
    );
  });
});

/** The rule read character by character: what the fast scan must agree with. */
function referenceDepthError(text: string): { line: number; reason: string } | undefined {
  let flow = 0;
  let line = 1;
  let lineStart = true;
  let indent = 0;
  let quote: string | undefined;
  const exceeded = () => ({ line, reason: `exceeded max depth of ${MAX_YAML_DEPTH}` });
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
        if (++indent > MAX_YAML_DEPTH) return exceeded();
        continue;
      }
      lineStart = false;
    }
    if (quote !== undefined) {
      if (c === '\\' && quote === '"' && text[i + 1] !== '\n') i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(text[i - 1] ?? ''))) {
      while (i + 1 < text.length && text[i + 1] !== '\n') i++;
    } else if (c === '[' || c === '{') {
      if (++flow > MAX_YAML_DEPTH) return exceeded();
    } else if ((c === ']' || c === '}') && flow > 0) flow--;
  }
  return undefined;
}

describe('yamlDepthError against the character-by-character rule', () => {
  it('agrees on any mix of quotes, comments, brackets, indentation and line breaks', () => {
    // Deep brackets are weighted up so that many sequences go over the bound and the reported line is compared.
    const piece = fc.oneof(
      { arbitrary: fc.constantFrom(...' \n"\'\\#[]{}a\t'.split(''), 'key: value', ' # note'), weight: 6 },
      { arbitrary: fc.constantFrom('['.repeat(120), '{'.repeat(250), ']]]'), weight: 3 },
      { arbitrary: fc.constantFrom(' '.repeat(130), '"x\\\n', '\\\n'), weight: 1 },
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40, size: 'max' }), (pieces) => {
        const text = pieces.join('');
        expect(yamlDepthError(text)).toEqual(referenceDepthError(text));
      }),
      { seed: 20261127, numRuns: Number(process.env.FUZZ_RUNS ?? 1000) },
    );
  });
});
