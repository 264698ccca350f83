import type { PackageGraph, UpgradeEdge } from './upgrade-graph.js';

function describe(edges: readonly UpgradeEdge[]): string {
  const parts: string[] = [];
  const replaces = edges.filter((e) => e.kind === 'replaces').map((e) => e.from);
  const skips = edges.filter((e) => e.kind === 'skips').map((e) => e.from);
  const ranged = edges.filter((e) => e.kind === 'skipRange');
  if (replaces.length > 0) parts.push(`replaces ${replaces.join(', ')}`);
  if (skips.length > 0) parts.push(`skips ${skips.join(', ')}`);
  if (ranged.length > 0)
    parts.push(`skipRange ${ranged[0]!.range} covers ${ranged.map((e) => e.from).join(', ')}`);
  return parts.join('; ');
}

/**
 * Renders an upgrade graph as indented plain text: each channel (default and head marked) lists its entries in
 * catalog order with their version and incoming edges, e.g.
 * `  op.v1.2.0 (1.2.0) <- replaces op.v1.1.0; skipRange >=1.0.0 <1.2.0 covers op.v1.0.0, op.v1.1.0`.
 */
export function renderText(graph: PackageGraph): string {
  const lines = [`package ${graph.package} (default channel ${graph.defaultChannel || '<none>'})`];
  for (const ch of graph.channels) {
    const marks = [ch.isDefault ? 'default' : '', ch.head ? `head ${ch.head}` : 'no single head'].filter(
      Boolean,
    );
    lines.push(`  channel ${ch.name} (${marks.join(', ')})`);
    for (const n of ch.nodes) {
      const incoming = describe(ch.edges.filter((e) => e.to === n.name));
      lines.push(`    ${n.name} (${n.version ?? '?'})${incoming ? ` <- ${incoming}` : ''}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
