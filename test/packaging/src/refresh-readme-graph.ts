// Redraws the root README's upgrade graph from catalog/configs with `opkit graph` (`nx run packaging:readme-graph`).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { drawUpgradeGraph, readReadmeGraph, withReadmeGraph } from './readme-graph.js';
import { findWorkspaceRoot } from './workspace.js';

const root = findWorkspaceRoot();
const file = join(root, 'README.md');
const readme = readFileSync(file, 'utf8');
const drawn = drawUpgradeGraph(root);
if (readReadmeGraph(readme).mermaid === drawn) {
  process.stdout.write('README.md: the upgrade graph is current\n');
} else {
  writeFileSync(file, withReadmeGraph(readme, drawn));
  process.stdout.write('README.md: upgrade graph redrawn from catalog/configs\n');
}
