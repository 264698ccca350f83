import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { yamlDocuments, yamlDocumentsByLine } from './yaml-stream.js';

// A fixed seed keeps `npm test` reproducible; FUZZ_RUNS=100000 searches longer on demand.
const params = { seed: 20261206, numRuns: Number(process.env.FUZZ_RUNS ?? 500) };

describe('yamlDocuments', () => {
  it('splits a stream as the line-by-line reading does, separators, comments and blank lines included', () => {
    // Lines shaped like the edges of the splitter: separators with comments or content after them, lines that
    // start like one, blank lines, spaces and a missing last newline.
    const line = fc.constantFrom(
      '---',
      '--- # c',
      '---x',
      '--- x',
      '----',
      ' ---',
      '--',
      '',
      ' ',
      'a: 1',
      '# comment',
      'b: |',
      '  text',
      '---\t',
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), fc.boolean(), (lines, lastNewline) => {
        const text = lines.join('\n') + (lastNewline ? '\n' : '');
        expect([...yamlDocuments(text)]).toEqual([...yamlDocumentsByLine(text)]);
      }),
      params,
    );
  });

  it('reads CRLF text as LF text', () => {
    expect([...yamlDocuments('a: 1\r\n---\r\nb: 2\r\n')]).toEqual([{ text: 'a: 1\n' }, { text: 'b: 2\n' }]);
  });
});
