import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  drawUpgradeGraph,
  graphDifference,
  README_GRAPH_PACKAGE,
  REFRESH_COMMAND,
  readReadmeGraph,
  withReadmeGraph,
} from './readme-graph.js';
import { findWorkspaceRoot } from './workspace.js';

const root = findWorkspaceRoot();

describe('the README’s upgrade graph', () => {
  it('is what `opkit graph -o mermaid` draws from catalog/configs today', () => {
    const readme = readReadmeGraph(readFileSync(join(root, 'README.md'), 'utf8'));
    const drawn = drawUpgradeGraph(root);
    expect(drawn).toContain(`subgraph "${README_GRAPH_PACKAGE}"`);
    expect(graphDifference(readme, drawn)).toBeUndefined();
  }, 60_000);
});

describe('redrawing the graph between its markers', () => {
  const begin = `<!-- upgrade-graph ${README_GRAPH_PACKAGE}: drawn by \`opkit graph\`, refreshed by \`${REFRESH_COMMAND}\` -->`;
  const readme = [
    '# Title',
    '',
    begin,
    '```mermaid',
    'graph LR',
    '  a --> b',
    '```',
    '<!-- upgrade-graph end -->',
    'after',
    '',
  ].join('\n');

  it('reads the block and the line it starts on', () => {
    expect(readReadmeGraph(readme)).toEqual({ mermaid: 'graph LR\n  a --> b\n', line: 4 });
  });

  it('replaces only the block', () => {
    const redrawn = withReadmeGraph(readme, 'graph LR\n  a --> c');
    expect(redrawn).toBe(readme.replace('a --> b', 'a --> c'));
    expect(readReadmeGraph(redrawn).mermaid).toBe('graph LR\n  a --> c\n');
  });

  it('names the first differing line and the command that refreshes it, in one line', () => {
    const hint = graphDifference(readReadmeGraph(readme), 'graph LR\n  a --> c\n');
    expect(hint).toBe(
      `README.md:6: the upgrade graph of ${README_GRAPH_PACKAGE} is not what \`opkit graph\` draws from catalog/configs (README "  a --> b", drawn "  a --> c"); run \`${REFRESH_COMMAND}\``,
    );
    expect(graphDifference(readReadmeGraph(readme), 'graph LR\n  a --> b\n')).toBeUndefined();
  });

  it('refuses a README without the markers or without the block', () => {
    expect(() => readReadmeGraph('# Title\n')).toThrow(/^README\.md: no upgrade graph between/);
    expect(() => readReadmeGraph(`${begin}\ntext\n<!-- upgrade-graph end -->\n`)).toThrow(
      'README.md: the upgrade graph markers hold no single ```mermaid block',
    );
  });
});
