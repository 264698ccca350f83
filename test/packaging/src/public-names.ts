// The public names of the workspace's packages: what each entry point of a package.json `exports` map
// exports, counted by the TypeScript compiler on the entry's source file (re-exports included).
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { compareText, type EntryPoint, entryPoints, type WorkspacePackage } from './workspace.js';

/** The names one entry point exports. */
export interface EntryNames {
  readonly entry: string;
  /** The source file, relative to the package; undefined when the entry is not a TypeScript module. */
  readonly source: string | undefined;
  /** Names with a value at run time (functions, classes, constants, enums, namespaces). */
  readonly values: readonly string[];
  /** Names that are only types (interfaces, type aliases, `export type`). */
  readonly types: readonly string[];
}

/** A package's entry points and the distinct names over all of them. */
export interface PackageNames {
  readonly name: string;
  readonly dir: string;
  readonly entries: readonly EntryNames[];
  /** Distinct names over all entry points: a name exported by two entries counts once. */
  readonly distinctValues: number;
  readonly distinctTypes: number;
}

/** Counts the exports of every package's entry points in one TypeScript program. */
export function publicNames(root: string, packages: readonly WorkspacePackage[]): PackageNames[] {
  const options = compilerOptions(root);
  const sources = packages.flatMap((pkg) =>
    concreteEntryPoints(root, pkg).flatMap((point) =>
      point.source ? [join(root, pkg.dir, point.source)] : [],
    ),
  );
  const program = ts.createProgram({ rootNames: sources, options });
  const checker = program.getTypeChecker();
  return packages.map((pkg) => {
    const entries = concreteEntryPoints(root, pkg).map((point): EntryNames => {
      if (point.source === undefined) return { entry: point.entry, source: undefined, values: [], types: [] };
      const file = program.getSourceFile(join(root, pkg.dir, point.source));
      const module = file && checker.getSymbolAtLocation(file);
      if (!module) throw new Error(`${pkg.dir}/${point.source} is not a module the compiler could read`);
      const values: string[] = [];
      const types: string[] = [];
      for (const exported of checker.getExportsOfModule(module)) {
        (isValue(checker, exported) ? values : types).push(exported.name);
      }
      return {
        entry: point.entry,
        source: point.source,
        values: values.sort(compareText),
        types: types.sort(compareText),
      };
    });
    const distinctValues = new Set(entries.flatMap((entry) => entry.values));
    const distinctTypes = new Set(
      entries.flatMap((entry) => entry.types).filter((name) => !distinctValues.has(name)),
    );
    return {
      name: pkg.name,
      dir: pkg.dir,
      entries,
      distinctValues: distinctValues.size,
      distinctTypes: distinctTypes.size,
    };
  });
}

/**
 * The entry points with each subpath pattern (`./action/*` → `./src/action/*.ts`) replaced by the modules it
 * matches in its folder, as Node resolves them; spec files are not entry points.
 */
function concreteEntryPoints(root: string, pkg: WorkspacePackage): EntryPoint[] {
  return entryPoints(pkg).flatMap((point) => {
    if (!point.entry.includes('*') || point.source === undefined) return [point];
    const [before = '', after = ''] = point.source.split('*');
    const folder = dirname(`${before}x`);
    const prefix = before.slice(folder.length + 1);
    return readdirSync(join(root, pkg.dir, folder))
      .filter((file) => file.startsWith(prefix) && file.endsWith(after) && !file.endsWith(`.spec${after}`))
      .sort(compareText)
      .map((file) => {
        const stem = file.slice(prefix.length, file.length - after.length);
        return { entry: point.entry.replace('*', stem), source: `${folder}/${file}` };
      });
  });
}

/** The workspace's compiler options (tsconfig.base.json: Node module resolution with the `@opkit/source` condition). */
function compilerOptions(root: string): ts.CompilerOptions {
  const file = join(root, 'tsconfig.base.json');
  const read = ts.readConfigFile(file, (path) => ts.sys.readFile(path));
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
  const converted = ts.convertCompilerOptionsFromJson(read.config.compilerOptions, root, file);
  const error = converted.errors[0];
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
  return { ...converted.options, noEmit: true };
}

/** A name with a value meaning that no `export type` / `import type` along its alias chain hides. */
function isValue(checker: ts.TypeChecker, exported: ts.Symbol): boolean {
  let symbol = exported;
  for (let depth = 0; symbol.flags & ts.SymbolFlags.Alias; depth++) {
    if (symbol.declarations?.some((declaration) => ts.isTypeOnlyImportOrExportDeclaration(declaration)))
      return false;
    const next = checker.getImmediateAliasedSymbol(symbol);
    if (!next || depth > 100) return false;
    symbol = next;
  }
  return (symbol.flags & ts.SymbolFlags.Value) !== 0;
}
