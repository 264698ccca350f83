import type { PackageGraph } from './upgrade-graph.js';

const escapeDot = (s: string): string => s.replaceAll('\\', '\\\\').replaceAll('"', '\\"');
const quote = (s: string): string => `"${escapeDot(s)}"`;

const STYLE: Readonly<Record<string, string>> = {
  replaces: 'solid',
  skips: 'dashed',
  skipRange: 'dotted',
};

/**
 * Renders an upgrade graph as Graphviz DOT: one cluster per channel, nodes labelled with bundle name and version
 * (the channel head in bold), edges from the older to the newer bundle — solid for `replaces`, dashed for
 * `skips`, dotted for `skipRange`. Deterministic for a given graph.
 */
export function renderDot(graph: PackageGraph): string {
  const lines = [`digraph ${quote(graph.package)} {`, '  rankdir=LR;', '  node [shape=box];'];
  for (const ch of graph.channels) {
    const id = (name: string): string => quote(`${ch.name}/${name}`);
    lines.push(`  subgraph ${quote(`cluster_${ch.name}`)} {`);
    lines.push(`    label=${quote(ch.isDefault ? `${ch.name} (default)` : ch.name)};`);
    const known = new Set(ch.nodes.map((n) => n.name));
    for (const n of ch.nodes) {
      // \n inside a DOT string is a line break in the label.
      const label = n.version ? `"${escapeDot(n.name)}\\n${escapeDot(n.version)}"` : quote(n.name);
      const head = n.name === ch.head ? ', style=bold' : '';
      lines.push(`    ${id(n.name)} [label=${label}${head}];`);
    }
    for (const from of new Set(ch.edges.map((e) => e.from))) {
      if (!known.has(from)) lines.push(`    ${id(from)} [label=${quote(from)}, style=dashed];`);
    }
    for (const e of ch.edges) {
      const label = e.kind === 'skipRange' ? `skipRange ${e.range}` : e.kind;
      lines.push(`    ${id(e.from)} -> ${id(e.to)} [label=${quote(label)}, style=${STYLE[e.kind]}];`);
    }
    lines.push('  }');
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}
