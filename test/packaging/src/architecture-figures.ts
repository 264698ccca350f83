// `nx run packaging:figures [-- --json]`: prints the structure figures of the workspace (public names per
// package entry point, folder-level import cycles inside each package, imports between packages).

import { collectFigures, type Figures } from './figures.js';
import type { ImportEdge } from './import-graphs.js';

function main(args: readonly string[]): void {
  const unknown = args.filter((arg) => arg !== '--json');
  if (unknown.length > 0) {
    process.stderr.write(`usage: architecture-figures [--json]\nunknown argument: ${unknown.join(' ')}\n`);
    process.exitCode = 2;
    return;
  }
  const figures = collectFigures({ publicNames: true });
  process.stdout.write(args.includes('--json') ? `${JSON.stringify(figures, null, 2)}\n` : render(figures));
}

function render(figures: Figures): string {
  const lines: string[] = [];
  lines.push(
    'PUBLIC NAMES per package.json exports entry, counted by the TypeScript compiler on its @opkit/source file',
    '(re-exports included). values: a run-time meaning (function, class, constant, enum, namespace);',
    'types: type-only (interface, type alias, `export type`). The distinct line counts a name that two entries',
    'export once.',
    '',
    `${pad('package / entry point', 44)}${padLeft('values', 7)}${padLeft('types', 7)}${padLeft('names', 7)}`,
  );
  for (const pkg of figures.publicNames) {
    lines.push(`${pkg.name} (${pkg.dir})${pkg.entries.length === 0 ? ': no exports' : ''}`);
    for (const entry of pkg.entries) {
      lines.push(
        entry.source === undefined
          ? `  ${pad(entry.entry, 42)}${padLeft('-', 21)}   not a module`
          : `  ${pad(entry.entry, 42)}${counts(entry.values.length, entry.types.length)}`,
      );
    }
    if (pkg.entries.length > 1) {
      lines.push(`  ${pad('distinct over all entries', 42)}${counts(pkg.distinctValues, pkg.distinctTypes)}`);
    }
  }
  lines.push(
    '',
    'FOLDER-LEVEL IMPORT CYCLES in src/ (node: a first-level folder, or a file directly in src/; tests left out).',
    'Strongly connected components of more than one node, with value imports only (what runs) and with all',
    'imports (type-only ones too). Inside each all-imports component, its edges: imports (of which value).',
  );
  for (const graph of figures.folderGraphs) {
    const valueEdges = graph.edges.filter((edge) => edge.valueImports > 0).length;
    lines.push(
      '',
      `${graph.name} (${graph.dir}): ${graph.nodes.length} nodes, ${graph.edges.length} edges (${valueEdges} with value imports)`,
      `  value imports: ${describeCycles(graph.valueCycles)}`,
      `  all imports:   ${describeCycles(graph.cycles)}`,
    );
    const prefix = `${graph.dir}/src/`;
    for (const component of graph.cycles) {
      const members = new Set(component);
      lines.push(`  edges inside {${component.join(', ')}}:`);
      for (const edge of graph.edges.filter((e) => members.has(e.from) && members.has(e.to))) {
        lines.push(`    ${describeEdge(edge, 34)}  e.g. ${edge.example.split(prefix).join('')}`);
      }
    }
    for (const unresolved of graph.unresolved) lines.push(`  unresolved import: ${unresolved}`);
  }
  const packages = figures.packageGraph;
  lines.push(
    '',
    'IMPORTS BETWEEN WORKSPACE PACKAGES from shipped code (src/ without tests): imports (of which value)',
  );
  for (const edge of packages.edges) lines.push(`  ${describeEdge(edge, 60)}`);
  lines.push('', 'added only by tests and build scripts:');
  for (const edge of packages.testEdges) lines.push(`  ${describeEdge(edge, 60)}`);
  lines.push(
    '',
    `package cycles, shipped code:        ${describeCycles(packages.cycles)}`,
    `package cycles, with tests counted:  ${describeCycles(packages.cyclesWithTests)}`,
    '',
  );
  return lines.join('\n');
}

function describeCycles(components: readonly (readonly string[])[]): string {
  if (components.length === 0) return 'no cycle';
  return `${components.length} ${components.length === 1 ? 'cycle' : 'cycles'}: ${components
    .map((component) => `{${component.join(', ')}}`)
    .join(' ')}`;
}

function describeEdge(edge: ImportEdge, width: number): string {
  return `${pad(`${edge.from} → ${edge.to}`, width)}${padLeft(String(edge.imports), 5)} (${edge.valueImports})`;
}

function counts(values: number, types: number): string {
  return `${padLeft(String(values), 7)}${padLeft(String(types), 7)}${padLeft(String(values + types), 7)}`;
}

function pad(text: string, width: number): string {
  return text.length >= width ? `${text} ` : text.padEnd(width);
}

function padLeft(text: string, width: number): string {
  return text.padStart(width);
}

main(process.argv.slice(2));
