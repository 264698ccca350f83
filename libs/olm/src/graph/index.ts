// Upgrade graphs of a catalog package, as OLM resolves them (replaces, skips, skipRange), and their drawings.
export { sortChannel } from './channel-order.js';
export { GraphError, type GraphErrorCode } from './errors.js';
export {
  type NextUpgradeOptions,
  nextUpgrade,
  type UpgradeCandidate,
  type UpgradeDecision,
} from './next-upgrade.js';
export { renderDot } from './render-dot.js';
export { type MermaidOptions, renderMermaid } from './render-mermaid.js';
export { renderText } from './render-text.js';
export {
  buildUpgradeGraph,
  type ChannelGraph,
  type EdgeKind,
  type GraphNode,
  type PackageGraph,
  type UpgradeEdge,
} from './upgrade-graph.js';
