import type {
  Document,
  DocumentOptions,
  Lexer,
  LineCounter,
  ParseOptions,
  SchemaOptions,
  YAMLError,
} from 'yaml';
import { yamlLibrary } from '../yaml-library.js';

/** The two private members of the `yaml` lexer that decide where a quoted scalar ends. */
interface QuotedScalarInternals {
  buffer: string;
  continueScalar(offset: number): number;
  parseQuotedScalar(): Generator<string, unknown>;
}

const DOCUMENT_MARKER = /^(?:---|\.\.\.)(?:[ \t\r\n]|$)/;

/**
 * A `yaml` lexer that continues quoted scalars as go-yaml does: a continuation line may sit at any indentation,
 * even below its key's (older controller-gen wrote descriptions so); only a document marker at a line's start
 * ends the scalar. The stock lexer ends the scalar at the first under-indented line, and the document then fails
 * to parse or, after an escaped quote at a line's end, parses differently. Leading white space of continuation
 * lines is folded away either way, so values are what go-yaml reads. Should a `yaml` release rename these private
 * members, the lexer stays stock (the conformance corpus then fails rather than anything crashing).
 */
function goLexer(): Lexer {
  const lexer = new (yamlLibrary().Lexer)();
  const internals = lexer as unknown as QuotedScalarInternals;
  if (typeof internals.continueScalar !== 'function' || typeof internals.parseQuotedScalar !== 'function') {
    return lexer;
  }
  const continueScalar = internals.continueScalar.bind(lexer);
  const parseQuotedScalar = internals.parseQuotedScalar.bind(lexer);
  let inQuoted = false;
  internals.parseQuotedScalar = function* () {
    inQuoted = true;
    try {
      return yield* parseQuotedScalar();
    } finally {
      inQuoted = false;
    }
  };
  internals.continueScalar = (offset) => {
    if (!inQuoted) return continueScalar(offset);
    return DOCUMENT_MARKER.test(internals.buffer.slice(offset, offset + 4)) ? -1 : offset;
  };
  return lexer;
}

type Options = ParseOptions & DocumentOptions & SchemaOptions;

/** What the `yaml` package's `prettyErrors` adds and readers use: line and column, in `linePos` and the message. */
function locate(lines: LineCounter): (error: YAMLError) => void {
  return (error) => {
    if (error.pos[0] === -1) return;
    error.linePos = [lines.linePos(error.pos[0]), lines.linePos(error.pos[1])];
    error.message += ` at line ${error.linePos[0].line}, column ${error.linePos[0].col}`;
  };
}

function compose(text: string, options: Options, onlyFirst: boolean): Document.Parsed[] {
  const { Composer, LineCounter, Parser, YAMLParseError } = yamlLibrary();
  const lines = new LineCounter();
  const parser = new Parser(lines.addNewLine);
  (parser as unknown as { lexer: Lexer }).lexer = goLexer();
  const composer = new Composer(options);
  const docs: Document.Parsed[] = [];
  const tokens = parser.parse(text);
  for (const doc of onlyFirst ? composer.compose(tokens, true, text.length) : composer.compose(tokens)) {
    if (onlyFirst && docs.length === 1) {
      const message = 'Source contains multiple documents; please use YAML.parseAllDocuments()';
      docs[0]!.errors.push(new YAMLParseError([doc.range[0], doc.range[1]], 'MULTIPLE_DOCS', message));
      break;
    }
    docs.push(doc as Document.Parsed);
  }
  for (const doc of docs) {
    doc.errors.forEach(locate(lines));
    doc.warnings.forEach(locate(lines));
  }
  return docs;
}

/** `parseAllDocuments` of the `yaml` package, with go-yaml's quoted scalars (see {@link goLexer}). */
export function parseGoYamlDocuments(text: string, options: Options = {}): Document.Parsed[] {
  return compose(text, options, false);
}

/** `parseDocument` of the `yaml` package, with go-yaml's quoted scalars (see {@link goLexer}). */
export function parseGoYamlDocument(text: string, options: Options = {}): Document.Parsed {
  return compose(text, options, true)[0]!;
}
