/** One step of {@link yamlDocuments}: a document's text, or the separator error that stops the stream. */
export type YamlStreamItem = { readonly text: string } | { readonly error: string };

/**
 * Splits a YAML stream into documents exactly like k8s.io/apimachinery's `YAMLReader` (what opm's loader uses):
 * a line starting with `---` ends the current document, the rest of that line must be empty or a comment
 * (`invalid Yaml document separator: …` otherwise), empty documents are skipped, but a document holding only
 * blank lines or comments is returned (and later fails as an object without schema). CRLF becomes LF.
 */
export function* yamlDocuments(text: string): Generator<YamlStreamItem> {
  // Without CR, every document is a slice of the text: no array of its lines, no copy of each document.
  if (text.includes('\r')) {
    yield* yamlDocumentsByLine(text);
    return;
  }
  let start = 0;
  let pos = 0;
  while (pos < text.length) {
    const newline = text.indexOf('\n', pos);
    const lineEnd = newline < 0 ? text.length : newline;
    const next = newline < 0 ? text.length : newline + 1;
    if (text.startsWith('---', pos)) {
      const trimmed = text.slice(pos + 3, lineEnd).trim();
      if (trimmed.length > 0 && trimmed[0] !== '#') {
        yield { error: `invalid Yaml document separator: ${trimmed}` };
        return;
      }
      if (pos > start) yield { text: text.slice(start, pos) };
      start = next;
    }
    pos = next;
  }
  // The last line ends with a newline, whether or not the text did.
  if (text.length > start) yield { text: text.endsWith('\n') ? text.slice(start) : `${text.slice(start)}\n` };
}

/** {@link yamlDocuments} line by line, each line's CR dropped: the reference its slicing is tested against. */
export function* yamlDocumentsByLine(text: string): Generator<YamlStreamItem> {
  const lines = text.split('\n');
  // A trailing newline does not start another line.
  if (lines[lines.length - 1] === '') lines.pop();
  let buffer = '';
  for (const raw of lines) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.startsWith('---')) {
      const trimmed = line.slice(3).trim();
      if (trimmed.length > 0 && trimmed[0] !== '#') {
        yield { error: `invalid Yaml document separator: ${trimmed}` };
        return;
      }
      if (buffer.length > 0) yield { text: buffer };
      buffer = '';
      continue;
    }
    buffer += `${line}\n`;
  }
  if (buffer.length > 0) yield { text: buffer };
}
