// The upgrade graph the root README shows: drawn by `opkit graph -o mermaid` from the catalog in catalog/,
// between two marker comments, so a test can say when the README no longer shows what the catalog holds and
// a target can redraw it.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { workspacePackages } from './workspace.js';

/** The catalog package the README draws. */
export const README_GRAPH_PACKAGE = 'memcached-operator';

/** The command that redraws the README's graph. */
export const REFRESH_COMMAND = 'npx nx run packaging:readme-graph';

const BEGIN = `<!-- upgrade-graph ${README_GRAPH_PACKAGE}: drawn by \`opkit graph\`, refreshed by \`${REFRESH_COMMAND}\` -->`;
const END = '<!-- upgrade-graph end -->';

/** The README's graph: the text of its ```mermaid block between the markers, and the line the block starts on. */
export interface ReadmeGraph {
  readonly mermaid: string;
  readonly line: number;
}

/** The graph between the markers of `readme`; throws one line when the markers or the block are missing. */
export function readReadmeGraph(readme: string): ReadmeGraph {
  const { before, block } = splitAtMarkers(readme);
  const fenced = /^```mermaid\n([\s\S]*?)```\n$/.exec(block);
  if (!fenced) throw new Error('README.md: the upgrade graph markers hold no single ```mermaid block');
  return { mermaid: fenced[1] ?? '', line: before.split('\n').length + 1 };
}

/** `readme` with the block between the markers replaced by `mermaid`, everything else as it was. */
export function withReadmeGraph(readme: string, mermaid: string): string {
  const { before, after } = splitAtMarkers(readme);
  const body = mermaid.endsWith('\n') ? mermaid : `${mermaid}\n`;
  return `${before}\n\`\`\`mermaid\n${body}\`\`\`\n${after}`;
}

/** The first line where the README's graph and the drawn one differ, as a one-line hint; undefined when equal. */
export function graphDifference(readme: ReadmeGraph, drawn: string): string | undefined {
  if (readme.mermaid === drawn) return undefined;
  const have = readme.mermaid.split('\n');
  const want = drawn.split('\n');
  let i = 0;
  while (i < have.length && have[i] === want[i]) i++;
  return (
    `README.md:${readme.line + 1 + i}: the upgrade graph of ${README_GRAPH_PACKAGE} is not what \`opkit graph\` ` +
    `draws from catalog/configs (README ${JSON.stringify(have[i] ?? '(end)')}, drawn ` +
    `${JSON.stringify(want[i] ?? '(end)')}); run \`${REFRESH_COMMAND}\``
  );
}

/**
 * `opkit graph catalog/configs --package <package> -o mermaid` as the CLI prints it, run from the CLI's
 * TypeScript sources (`OPKIT_FROM_SOURCE=1`), so no build, stale or missing, stands between the sources and
 * the graph.
 */
export function drawUpgradeGraph(root: string): string {
  const cli = workspacePackages(root).find((p) => p.name === '@opkit/cli');
  if (!cli) throw new Error('no @opkit/cli package in the workspace');
  return execFileSync(
    process.execPath,
    [
      join(root, cli.dir, 'bin', 'opkit.js'),
      'graph',
      join('catalog', 'configs'),
      '--package',
      README_GRAPH_PACKAGE,
      '-o',
      'mermaid',
    ],
    { cwd: root, encoding: 'utf8', env: { ...process.env, OPKIT_FROM_SOURCE: '1' } },
  );
}

function splitAtMarkers(readme: string): { before: string; block: string; after: string } {
  const begin = readme.indexOf(BEGIN);
  const end = readme.indexOf(END, begin);
  if (begin < 0 || end < 0) throw new Error(`README.md: no upgrade graph between "${BEGIN}" and "${END}"`);
  const blockStart = begin + BEGIN.length + 1;
  return {
    before: readme.slice(0, blockStart - 1),
    block: readme.slice(blockStart, end),
    after: readme.slice(end),
  };
}
