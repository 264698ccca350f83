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
