/** One step of {@link yamlDocuments}: a document's text, or the separator error that stops the stream. */
export type YamlStreamItem = { readonly text: string } | { readonly error: string };

/**
 * Splits a YAML stream into documents exactly like k8s.io/apimachinery's `YAMLReader` (what opm's loader uses):
 * a line starting with `---` ends the current document, the rest of that line must be empty or a comment
 * (`invalid Yaml document separator: …` otherwise), empty documents are skipped, but a document holding only
 * blank lines or comments is returned (and later fails as an object without schema). CRLF becomes LF.
 */
export function* yamlDocuments(text: string): Generator<YamlStreamItem> {
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
