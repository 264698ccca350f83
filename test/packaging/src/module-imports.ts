// The module specifiers a source file imports, and whether each import is still there at run time.
import ts from 'typescript';

/** One import of a module by a source file. */
export interface ModuleImport {
  /** The specifier as written: `./cache/index.js`, `@opkit/oci`. */
  readonly specifier: string;
  /**
   * Erased when compiled: `import type`, `export type … from`, `import('…')` in a type, or an import whose
   * bindings are all `type` or used only in types (TypeScript drops those, as tsx and esbuild do).
   */
  readonly typeOnly: boolean;
}

/** The imports of a file: static imports, `export … from`, dynamic `import()` and `import('…')` types. */
export function moduleImports(fileName: string, text: string): ModuleImport[] {
  const javaScript = /\.[cm]?js$/.test(fileName);
  const source = ts.createSourceFile(
    fileName,
    text,
    ts.ScriptTarget.Latest,
    false,
    javaScript ? ts.ScriptKind.JS : ts.ScriptKind.TS,
  );
  const valueNames = javaScript ? undefined : namesUsedAsValues(source);
  const imports: ModuleImport[] = [];
  const add = (specifier: ts.Expression | undefined, typeOnly: boolean): void => {
    if (specifier && ts.isStringLiteralLike(specifier)) imports.push({ specifier: specifier.text, typeOnly });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      add(node.moduleSpecifier, valueNames !== undefined && importIsErased(node, valueNames));
      return;
    }
    if (ts.isExportDeclaration(node)) {
      add(node.moduleSpecifier, exportIsErased(node));
      return;
    }
    if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression, node.isTypeOnly);
      return;
    }
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node.arguments[0], false);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return imports;
}

/** Whether TypeScript drops this import declaration when it compiles the file on its own (isolated modules). */
function importIsErased(node: ts.ImportDeclaration, valueNames: ReadonlySet<string>): boolean {
  const clause = node.importClause;
  if (!clause) return false; // `import './x.js'` is kept for its side effects
  if (clause.isTypeOnly) return true;
  const locals: string[] = [];
  if (clause.name) locals.push(clause.name.text);
  const bindings = clause.namedBindings;
  if (bindings && ts.isNamespaceImport(bindings)) locals.push(bindings.name.text);
  if (bindings && ts.isNamedImports(bindings)) {
    for (const element of bindings.elements) if (!element.isTypeOnly) locals.push(element.name.text);
  }
  return !locals.some((local) => valueNames.has(local));
}

function exportIsErased(node: ts.ExportDeclaration): boolean {
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  return clause !== undefined && ts.isNamedExports(clause) && clause.elements.length > 0
    ? clause.elements.every((element) => element.isTypeOnly)
    : false;
}

/**
 * The identifiers a file uses where a value is meant: not in types, interfaces or type aliases, not as
 * property or declaration names. Shadowing is ignored, so a name may count as a value use once too often,
 * never too seldom: an import is called erased only when TypeScript would erase it.
 */
function namesUsedAsValues(source: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  // Parents are passed down rather than read from the nodes: parsing without parent links takes half the time.
  const visit = (node: ts.Node, parent: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node))
      return;
    if (ts.isHeritageClause(node)) {
      // A class's `extends` names a value; `implements` names types (interfaces were skipped above).
      if (node.token === ts.SyntaxKind.ExtendsKeyword) {
        for (const type of node.types) visit(type.expression, type);
      }
      return;
    }
    if (ts.isTypeNode(node) && !ts.isExpressionWithTypeArguments(node)) return;
    if (ts.isExportDeclaration(node) && (node.isTypeOnly || node.moduleSpecifier)) return;
    if (ts.isExportSpecifier(node)) {
      if (!node.isTypeOnly) names.add((node.propertyName ?? node.name).text);
      return;
    }
    if (ts.isIdentifier(node) && !isDeclarationOrPropertyName(node, parent)) names.add(node.text);
    ts.forEachChild(node, (child) => visit(child, node));
  };
  visit(source, source);
  return names;
}

function isDeclarationOrPropertyName(node: ts.Identifier, parent: ts.Node): boolean {
  if (ts.isPropertyAccessExpression(parent)) return parent.name === node;
  if (ts.isQualifiedName(parent)) return parent.right === node;
  if (ts.isShorthandPropertyAssignment(parent)) return false; // `{ x }` reads the value x
  // Declarations, property assignments, methods, parameters, binding elements: the name they declare.
  return 'name' in parent && parent.name === node;
}
