// Import graphs of the workspace: between the top-level folders of one package's src/, and between packages.
import { existsSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { type ModuleImport, moduleImports } from './module-imports.js';
import { cycles, type Graph } from './strongly-connected.js';
import {
  compareText,
  entryPoints,
  packageSources,
  type SourceFile,
  type WorkspacePackage,
} from './workspace.js';

/** A source file and what it imports. */
export interface ScannedFile extends SourceFile {
  readonly imports: readonly ModuleImport[];
}

/** A package's source files, each with its imports. */
export interface ScannedPackage extends WorkspacePackage {
  readonly files: readonly ScannedFile[];
}

export function scanPackage(root: string, pkg: WorkspacePackage): ScannedPackage {
  const files = packageSources(root, pkg).map((file) => ({
    ...file,
    imports: moduleImports(file.path, readFileSync(join(root, file.path), 'utf8')),
  }));
  return { ...pkg, files };
}

/** Imports from one node of a graph to another. */
export interface ImportEdge {
  readonly from: string;
  readonly to: string;
  /** Import statements along this edge, type-only ones included. */
  readonly imports: number;
  /** Those still there at run time. */
  readonly valueImports: number;
  /** One of them: `file → imported file` (a value import where there is one). */
  readonly example: string;
}

/** The graph of one package's src/: a node per first-level folder (`cache/`) and per file directly in src/. */
export interface FolderGraph {
  readonly name: string;
  readonly dir: string;
  readonly nodes: readonly string[];
  readonly edges: readonly ImportEdge[];
  /** Strongly connected components of more than one node, counting every import. */
  readonly cycles: readonly (readonly string[])[];
  /** The same, counting only value imports: the cycles that exist at run time. */
  readonly valueCycles: readonly (readonly string[])[];
  /** Relative imports that name no file: `file: specifier`. */
  readonly unresolved: readonly string[];
}

/** The folder graph of a package's shipped code (src/, tests left out). */
export function folderGraph(root: string, pkg: ScannedPackage): FolderGraph {
  const src = `${pkg.dir}/src/`;
  const production = pkg.files.filter((file) => file.production);
  const nodes = new Set(production.map((file) => folderNode(file.path.slice(src.length))));
  const edges = new EdgeCounter();
  const unresolved: string[] = [];
  const ownEntries = new Map(entryPoints(pkg).map((point) => [point.entry, point.source]));
  for (const file of production) {
    for (const imported of file.imports) {
      const target = resolveWithinPackage(root, pkg, file.path, imported.specifier, ownEntries);
      if (target === 'unresolved') unresolved.push(`${file.path}: ${imported.specifier}`);
      if (target === 'unresolved' || target === undefined || !target.startsWith(src)) continue;
      const from = folderNode(file.path.slice(src.length));
      const to = folderNode(target.slice(src.length));
      nodes.add(to);
      if (from !== to) edges.add(from, to, imported.typeOnly, `${file.path} → ${target}`);
    }
  }
  const edgeList = edges.list();
  return {
    name: pkg.name,
    dir: pkg.dir,
    nodes: [...nodes].sort(compareText),
    edges: edgeList,
    cycles: cycles(toGraph(nodes, edgeList, false)),
    valueCycles: cycles(toGraph(nodes, edgeList, true)),
    unresolved,
  };
}

/**
 * The node of a path relative to src/: its first folder (`cache/`), or the file itself. `internal/` only groups
 * modules no entry point exports, so each of its folders (`internal/cache/`) is a node of its own.
 */
export function folderNode(inSrc: string): string {
  const slash = inSrc.indexOf('/');
  if (slash < 0) return inSrc;
  const first = inSrc.slice(0, slash + 1);
  if (first !== 'internal/') return first;
  const next = inSrc.indexOf('/', slash + 1);
  return next < 0 ? inSrc : inSrc.slice(0, next + 1);
}

/**
 * The workspace-relative file a specifier names when it stays inside the package (a relative path, or the
 * package's own name through its `exports`); undefined for other packages and Node's modules.
 */
function resolveWithinPackage(
  root: string,
  pkg: WorkspacePackage,
  from: string,
  specifier: string,
  ownEntries: ReadonlyMap<string, string | undefined>,
): string | 'unresolved' | undefined {
  if (specifier === pkg.name || specifier.startsWith(`${pkg.name}/`)) {
    const source = ownEntries.get(`.${specifier.slice(pkg.name.length)}`);
    return source === undefined ? 'unresolved' : `${pkg.dir}/${source}`;
  }
  if (!specifier.startsWith('.')) return undefined;
  const base = posix.join(posix.dirname(from), specifier);
  const candidates = /\.js$/.test(base)
    ? [base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'), base]
    : /\.mjs$/.test(base)
      ? [base.replace(/\.mjs$/, '.mts'), base]
      : /\.cjs$/.test(base)
        ? [base.replace(/\.cjs$/, '.cts'), base]
        : [base, `${base}.ts`, `${base}/index.ts`];
  return candidates.find((candidate) => existsSync(join(root, candidate))) ?? 'unresolved';
}

/** Which workspace package imports which. */
export interface PackageGraph {
  readonly packages: readonly string[];
  /** Edges from shipped code (src/ without tests); a type-only import counts, it still needs the package to build. */
  readonly edges: readonly ImportEdge[];
  /** Edges that only tests and build scripts add. */
  readonly testEdges: readonly ImportEdge[];
  /** Cycles among packages through shipped code. */
  readonly cycles: readonly (readonly string[])[];
  /** Cycles once tests and build scripts count too. */
  readonly cyclesWithTests: readonly (readonly string[])[];
}

export function packageGraph(packages: readonly ScannedPackage[]): PackageGraph {
  const names = new Set(packages.map((pkg) => pkg.name));
  const production = new EdgeCounter();
  const all = new EdgeCounter();
  for (const pkg of packages) {
    for (const file of pkg.files) {
      for (const imported of file.imports) {
        const target = packageOf(imported.specifier);
        if (target === undefined || target === pkg.name || !names.has(target)) continue;
        const example = `${file.path} → ${imported.specifier}`;
        all.add(pkg.name, target, imported.typeOnly, example);
        if (file.production) production.add(pkg.name, target, imported.typeOnly, example);
      }
    }
  }
  const edges = production.list();
  const allEdges = all.list();
  const productionPairs = new Set(edges.map((edge) => `${edge.from} ${edge.to}`));
  return {
    packages: [...names].sort(compareText),
    edges,
    testEdges: allEdges.filter((edge) => !productionPairs.has(`${edge.from} ${edge.to}`)),
    cycles: cycles(toGraph(names, edges, false)),
    cyclesWithTests: cycles(toGraph(names, allEdges, false)),
  };
}

/** The package a bare specifier names: `@scope/name` or `name`; undefined for relative and `node:` ones. */
export function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.includes(':')) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Counts the imports of each (from, to) pair, keeping one example: a value import where there is one. */
class EdgeCounter {
  readonly #edges = new Map<
    string,
    {
      from: string;
      to: string;
      imports: number;
      valueImports: number;
      example: string;
      valueExample?: string;
    }
  >();

  add(from: string, to: string, typeOnly: boolean, example: string): void {
    const key = `${from}\n${to}`;
    const edge = this.#edges.get(key) ?? { from, to, imports: 0, valueImports: 0, example };
    edge.imports++;
    if (!typeOnly) {
      edge.valueImports++;
      edge.valueExample ??= example;
    }
    this.#edges.set(key, edge);
  }

  list(): ImportEdge[] {
    return [...this.#edges.values()]
      .map(({ from, to, imports, valueImports, example, valueExample }) => ({
        from,
        to,
        imports,
        valueImports,
        example: valueExample ?? example,
      }))
      .sort((a, b) => compareText(a.from, b.from) || compareText(a.to, b.to));
  }
}

function toGraph(nodes: Iterable<string>, edges: readonly ImportEdge[], valueOnly: boolean): Graph {
  const graph = new Map<string, Set<string>>();
  for (const node of nodes) graph.set(node, new Set());
  for (const edge of edges) {
    if (valueOnly && edge.valueImports === 0) continue;
    graph.get(edge.from)?.add(edge.to);
    if (!graph.has(edge.to)) graph.set(edge.to, new Set());
  }
  return graph;
}
