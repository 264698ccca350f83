// The architecture test: no import cycle between the folders of the main packages' src/ (type-only imports
// counted: a cycle of types is still two folders that cannot be read one after the other), no cycle
// between workspace packages, and the runtime free of the build-time tools. `nx run packaging:figures` shows
// the figures behind it.
import { beforeAll, describe, expect, it } from 'vitest';
import { collectFigures, type Figures, type FolderGraph } from './index.js';
import { findWorkspaceRoot } from './workspace.js';

const root = findWorkspaceRoot();

/** Packages whose src/ folders must import each other in one direction only. */
const LAYERED = ['libs/controller-runtime', 'libs/controller-tools', 'libs/olm', 'libs/oci', 'tools/opkit'];

let figures: Figures;
// Parsing every source of the workspace takes seconds, several times that on a loaded machine.
beforeAll(() => {
  figures = collectFigures({ root });
}, 120_000);

describe('architecture', () => {
  it.each(LAYERED)('%s: no import cycle between the folders of src/', (dir) => {
    const graph = figures.folderGraphs.find((candidate) => candidate.dir === dir);
    expect(graph, `${dir} is a workspace package`).toBeDefined();
    if (graph) expect(describeCycles(graph)).toEqual([]);
  });

  it('no import cycle between workspace packages (shipped code)', () => {
    expect(figures.packageGraph.cycles).toEqual([]);
  });

  it('@opkit/controller-runtime does not import @opkit/controller-tools', () => {
    const imports = figures.packageGraph.edges
      .concat(figures.packageGraph.testEdges)
      .filter((edge) => edge.from === '@opkit/controller-runtime' && edge.to === '@opkit/controller-tools')
      .map((edge) => edge.example);
    expect(imports).toEqual([]);
  });
});

/** Each cycle with the imports that close it, one example file pair per edge. */
function describeCycles(graph: FolderGraph): string[] {
  const prefix = `${graph.dir}/src/`;
  return graph.cycles.map((component) => {
    const members = new Set(component);
    const edges = graph.edges
      .filter((edge) => members.has(edge.from) && members.has(edge.to))
      .map((edge) => `${edge.from} → ${edge.to} (${edge.example.split(prefix).join('')})`);
    return `{${component.join(', ')}}: ${edges.join('; ')}`;
  });
}
