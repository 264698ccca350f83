import type { DocumentOptions, ParseOptions, SchemaOptions } from 'yaml';
import { parseGoYamlDocuments } from '../go-compat/index.js';
import { yamlDepthError } from '../go-compat/yaml-depth.js';
import { canUsePlain } from '../go-compat/yaml-emit.js';
import { yamlLibrary } from '../yaml-library.js';

/**
 * YAML the way the Go tools read and write it. They decode with go-yaml v2 (YAML 1.1: `yes`, `on`, `y` are
 * booleans, `0777` is octal) but keep timestamps and `1:20` as strings; they write keys sorted, two-space
 * indentation and sequences flush with their key (sigs.k8s.io/yaml).
 */

const GO_YAML: ParseOptions & DocumentOptions & SchemaOptions = {
  version: '1.1',
  customTags: (tags) =>
    tags.filter(
      (tag) =>
        typeof tag === 'string' || (tag.format !== 'TIME' && tag.tag !== 'tag:yaml.org,2002:timestamp'),
    ),
};

/** One decoded YAML document, or why it could not be decoded. */
export type YamlDocumentResult =
  | { readonly ok: true; readonly value: unknown; readonly line: number }
  | {
      readonly ok: false;
      readonly reason: string;
      readonly line: number;
      /** The reader limit that refused the document (nesting depth, alias expansion), when not its syntax. */
      readonly limit?: 'depth' | 'aliases';
    };

/** The yaml library's refusal of a document whose aliases expand past `maxAliasCount`. */
const ALIAS_LIMIT = 'Excessive alias count';

/** Decodes every document of a YAML (or JSON) stream; empty documents are skipped. */
export function parseYamlDocuments(text: string): YamlDocumentResult[] {
  const lineOf = (offset: number): number => text.slice(0, offset).split('\n').length;
  const results: YamlDocumentResult[] = [];
  const tooDeep = yamlDepthError(text);
  if (tooDeep !== undefined) return [{ ok: false, ...tooDeep, limit: 'depth' }];
  for (const doc of parseGoYamlDocuments(text, GO_YAML)) {
    const start = doc.range[0];
    if (doc.errors.length > 0) {
      const first = doc.errors[0]!;
      const line = first.linePos?.[0].line ?? lineOf(first.pos[0]);
      const col = first.linePos?.[0].col;
      const message = first.message.split('\n')[0]!;
      results.push({ ok: false, line, reason: col === undefined ? message : `${message} (column ${col})` });
      continue;
    }
    if (doc.contents === null) continue;
    try {
      results.push({ ok: true, value: doc.toJS({ maxAliasCount: 100 }), line: lineOf(start) });
    } catch (error) {
      const reason = (error as Error).message;
      results.push(
        reason.startsWith(ALIAS_LIMIT)
          ? // go-yaml's words, as the catalog reader gives them.
            {
              ok: false,
              line: lineOf(start),
              reason: 'document contains excessive aliasing',
              limit: 'aliases',
            }
          : { ok: false, line: lineOf(start), reason },
      );
    }
  }
  return results;
}

/** Why a document was not read: a reader limit in go-yaml's words, or where the YAML is malformed. */
export function yamlProblem(failure: Extract<YamlDocumentResult, { ok: false }>): string {
  if (failure.limit === 'aliases') return `yaml: ${failure.reason}`;
  if (failure.limit === 'depth') return `yaml: line ${failure.line}: ${failure.reason}`;
  return `malformed YAML at line ${failure.line}: ${failure.reason}`;
}

/**
 * The values of every document of a YAML stream of manifests (kustomize's output, a directory's files), read
 * as a bundle's manifests are: YAML 1.1 as go-yaml reads it, within its depth and alias limits. Empty and
 * null documents are left out.
 *
 * @throws Error with the first problem, as {@link yamlProblem} words it
 */
export function readYamlStream(text: string): unknown[] {
  return parseYamlDocuments(text).flatMap((doc) => {
    if (!doc.ok) throw new Error(yamlProblem(doc));
    return doc.value === null ? [] : [doc.value];
  });
}

/** Characters YAML 1.1 treats as line breaks, which must be escaped (`\N`, `\L`, `\P`) to survive. */
const YAML11_BREAKS = /[\u0085\u2028\u2029]/;

/**
 * Encodes `value` as sigs.k8s.io/yaml does: keys sorted, sequences not indented, no line folding, and strings
 * quoted whenever go-yaml would read them as something else (`"yes"`, `"0777"`, `"2021-01-01"`). Strings holding
 * a YAML 1.1 line break (NEL, LS, PS) are written double-quoted with escapes, so Go reads them back unchanged.
 */
export function toGoYaml(value: unknown): string {
  const { Document, visit } = yamlLibrary();
  const doc = new Document(value, { ...GO_YAML, sortMapEntries: true, aliasDuplicateObjects: false });
  let needsEscapes = false;
  visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value !== 'string') return;
      if (YAML11_BREAKS.test(node.value)) {
        node.type = 'QUOTE_DOUBLE';
        needsEscapes = true;
      } else if (!node.value.includes('\n') && !canUsePlain(node.value)) {
        // go-yaml's own choice of what to quote (e.g. a date, but not a date-time without a zone).
        node.type = 'QUOTE_DOUBLE';
      }
    },
  });
  const text = doc.toString({ indentSeq: false, lineWidth: 0 });
  return needsEscapes
    ? text.replaceAll('\u0085', '\\N').replaceAll('\u2028', '\\L').replaceAll('\u2029', '\\P')
    : text;
}
