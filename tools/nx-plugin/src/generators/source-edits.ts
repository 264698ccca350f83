// Edits of an operator's TypeScript sources that a new version of a kind needs, found with the TypeScript
// parser rather than at markers: the author's code around them stays as it is, and a file that no longer has
// the expected shape is refused with the place to edit by hand.
import ts from 'typescript';

/** Text to put at `at`, replacing what runs up to `end` (nothing, without it). */
interface Insertion {
  readonly at: number;
  readonly end?: number;
  readonly text: string;
}

function apply(text: string, edits: readonly Insertion[]): string {
  return [...edits]
    .sort((a, b) => b.at - a.at)
    .reduce((out, { at, end, text: piece }) => out.slice(0, at) + piece + out.slice(end ?? at), text);
}

/** Replaces a node's text, positions taken relative to `base`. */
function replace(node: ts.Node, text: string, base = 0): Insertion {
  return { at: node.getStart() - base, end: node.getEnd() - base, text };
}

function parse(path: string, text: string): ts.SourceFile {
  return ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
}

/** After the last import declaration (or at the top). */
function importInsertion(file: ts.SourceFile, line: string): Insertion {
  const imports = file.statements.filter(ts.isImportDeclaration);
  const last = imports.at(-1);
  return last ? { at: last.getEnd(), text: `\n${line}` } : { at: 0, text: `${line}\n` };
}

/** The object literal a `const <name> = …` declaration is initialised with (through `as`/`satisfies`). */
function constObject(file: ts.SourceFile, name: string): ts.ObjectLiteralExpression | undefined {
  let found: ts.ObjectLiteralExpression | undefined;
  const visit = (node: ts.Node): void => {
    if (found) return;
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.name.text === name) {
      let init = node.initializer;
      while (init && (ts.isAsExpression(init) || ts.isSatisfiesExpression(init))) init = init.expression;
      if (init && ts.isObjectLiteralExpression(init)) found = init;
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

function property(object: ts.ObjectLiteralExpression, name: string): ts.PropertyAssignment | undefined {
  return object.properties.find(
    (p): p is ts.PropertyAssignment =>
      ts.isPropertyAssignment(p) &&
      (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) &&
      p.name.text === name,
  );
}

/** Where a new member goes at the end of an object or array literal, with a comma after the last one. */
function appendMember(
  node: ts.ObjectLiteralExpression | ts.ArrayLiteralExpression,
  members: ts.NodeArray<ts.Node>,
  text: string,
): Insertion {
  const last = members.at(-1);
  if (!last) return { at: node.getStart() + 1, text };
  const trailingComma = members.hasTrailingComma;
  return {
    at: last.getEnd() + (trailingComma ? 1 : 0),
    text: `${trailingComma ? '' : ','} ${text}${trailingComma ? ',' : ''}`,
  };
}

/**
 * Adds version `version` to the kind's CRD (`<kind>-crd.ts`): a copy of the storage version's entry in
 * `versions`, served and not stored, with the version's own schema, imported as the namespace `version`.
 */
export function addCrdVersion(
  path: string,
  text: string,
  options: {
    readonly storage: string;
    readonly version: string;
    readonly schemaName: string;
    readonly module: string;
  },
): string {
  const file = parse(path, text);
  let versions: ts.ArrayLiteralExpression | undefined;
  const visit = (node: ts.Node): void => {
    if (versions) return;
    if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name) && node.name.text === 'versions') {
      if (ts.isArrayLiteralExpression(node.initializer)) versions = node.initializer;
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  const entries = versions?.elements.filter(ts.isObjectLiteralExpression) ?? [];
  const storage = entries.find((e) => {
    const name = property(e, 'name')?.initializer;
    return name !== undefined && ts.isStringLiteral(name) && name.text === options.storage;
  });
  if (!versions || !storage) {
    throw new Error(
      `${path}: no entry for ${options.storage} in a versions array of the CRD; add version ${options.version} there by hand`,
    );
  }
  const entry = property(storage, 'name');
  const stored = property(storage, 'storage');
  const schema = property(storage, 'schema');
  if (!entry || !stored || !schema) {
    throw new Error(
      `${path}: the ${options.storage} entry lacks name, storage or schema; add ${options.version} by hand`,
    );
  }
  // The copy: the storage entry's text with its name, storage flag and schema replaced.
  const base = storage.getStart();
  const copy = apply(storage.getText(), [
    replace(entry.initializer, `'${options.version}'`, base),
    replace(stored.initializer, 'false', base),
    replace(schema.initializer, `${options.version}.${options.schemaName}`, base),
  ]);
  return apply(text, [
    importInsertion(file, `import * as ${options.version} from '${options.module}';`),
    appendMember(versions, versions.elements, copy),
  ]);
}

/**
 * Adds `version` as a spoke of the kind's conversion in its webhook declaration (`<kind>-webhooks.ts`):
 * `conversion: { hub, spokes }`, created or extended, and the spoke's import.
 */
export function addConversionSpoke(
  path: string,
  text: string,
  options: {
    readonly declaration: string;
    readonly hub: string;
    readonly version: string;
    readonly module: string;
  },
): string {
  const file = parse(path, text);
  const declaration = constObject(file, options.declaration);
  if (!declaration) {
    throw new Error(
      `${path}: no object literal ${options.declaration}; add its conversion for ${options.version} by hand`,
    );
  }
  const spoke = `${options.version}: ${options.version}Spoke`;
  const conversion = property(declaration, 'conversion');
  let edit: Insertion;
  if (!conversion) {
    edit = appendMember(
      declaration,
      declaration.properties,
      `conversion: { hub: '${options.hub}', spokes: { ${spoke} } }`,
    );
  } else {
    const spokes =
      ts.isObjectLiteralExpression(conversion.initializer) &&
      property(conversion.initializer, 'spokes')?.initializer;
    if (!spokes || !ts.isObjectLiteralExpression(spokes)) {
      throw new Error(
        `${path}: ${options.declaration}.conversion has no spokes object; add ${spoke} by hand`,
      );
    }
    edit = appendMember(spokes, spokes.properties, spoke);
  }
  return apply(text, [
    importInsertion(file, `import { ${options.version}Spoke } from '${options.module}';`),
    edit,
  ]);
}
