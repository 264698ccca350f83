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
  node: ts.ObjectLiteralExpression | ts.ArrayLiteralExpression | ts.NamedImports,
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

/**
 * Adds named imports (`name` or `type Name`) from `module` to its import declaration, or a new one, skipping
 * those it has. A type-only declaration (`import type { … }`, as Biome writes one that imports only types)
 * that has to import a value too becomes a plain one with each type marked.
 */
function namedImports(file: ts.SourceFile, module: string, names: readonly string[]): Insertion | undefined {
  const declaration = file.statements
    .filter(ts.isImportDeclaration)
    .find((d) => ts.isStringLiteral(d.moduleSpecifier) && d.moduleSpecifier.text === module);
  const clause = declaration?.importClause;
  const bindings = clause?.namedBindings;
  if (!declaration || !clause || !bindings || !ts.isNamedImports(bindings)) {
    return names.length > 0
      ? importInsertion(file, `import { ${names.join(', ')} } from '${module}';`)
      : undefined;
  }
  const have = new Set(bindings.elements.map((e) => e.name.text));
  const missing = names.filter((n) => !have.has(n.replace(/^type /, '')));
  if (missing.length === 0) return undefined;
  if (!clause.isTypeOnly) return appendMember(bindings, bindings.elements, missing.join(', '));
  if (missing.every((n) => n.startsWith('type '))) {
    return appendMember(bindings, bindings.elements, missing.map((n) => n.replace(/^type /, '')).join(', '));
  }
  const all = [...bindings.elements.map((e) => `type ${e.getText()}`), ...missing];
  return replace(declaration, `import { ${all.join(', ')} } from '${module}';`);
}

/**
 * Adds admission webhooks to a kind's webhook declaration (`<kind>-webhooks.ts`): their code before the
 * declaration, their members in it, and their imports. A member the declaration has already is left as it is.
 */
export function addAdmissionWebhooks(
  path: string,
  text: string,
  options: {
    readonly declaration: string;
    readonly runtimeModule: string;
    readonly runtimeImports: readonly string[];
    /** Each webhook's member name (`defaulter`), its member text and its code. */
    readonly webhooks: readonly { readonly member: string; readonly text: string; readonly code: string }[];
  },
): string {
  const file = parse(path, text);
  const declaration = constObject(file, options.declaration);
  const statement = file.statements.find(
    (s) =>
      ts.isVariableStatement(s) &&
      s.declarationList.declarations.some(
        (d) => ts.isIdentifier(d.name) && d.name.text === options.declaration,
      ),
  );
  if (!declaration || !statement) {
    throw new Error(`${path}: no object literal ${options.declaration}; add the webhooks by hand`);
  }
  const missing = options.webhooks.filter((w) => !property(declaration, w.member));
  if (missing.length === 0) return text;
  const edits: Insertion[] = [
    { at: statement.getFullStart(), text: `\n\n${missing.map((w) => w.code.trimEnd()).join('\n\n')}` },
    appendMember(declaration, declaration.properties, missing.map((w) => w.text).join(', ')),
  ];
  const imports = namedImports(file, options.runtimeModule, options.runtimeImports);
  if (imports) edits.push(imports);
  return apply(text, edits);
}

/**
 * Adds test cases to the `describe(title, () => { … })` of a test file, and the names they import from
 * `module`.
 */
export function addTestCases(
  path: string,
  text: string,
  options: {
    readonly suite: string;
    readonly cases: readonly string[];
    readonly module?: string;
    readonly imports?: readonly string[];
  },
): string {
  const file = parse(path, text);
  let body: ts.Block | undefined;
  const visit = (node: ts.Node): void => {
    if (body) return;
    if (
      ts.isCallExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'describe'
    ) {
      const [title, fn] = node.arguments;
      if (
        title &&
        ts.isStringLiteralLike(title) &&
        title.text === options.suite &&
        fn &&
        (ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) &&
        ts.isBlock(fn.body)
      ) {
        body = fn.body;
        return;
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  if (!body) {
    throw new Error(`${path}: no describe('${options.suite}', …); add the tests of the new webhooks by hand`);
  }
  const edits: Insertion[] = [{ at: body.getEnd() - 1, text: `\n${options.cases.join('\n')}` }];
  const imports = options.module ? namedImports(file, options.module, options.imports ?? []) : undefined;
  if (imports) edits.push(imports);
  return apply(text, edits);
}
