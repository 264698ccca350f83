import { yamlLibrary } from '../../yaml-library.js';
import { type PackageChange, packageChanges } from './changes.js';
import type { CatalogDiff } from './types.js';

/** The formats a catalog diff renders to. */
export const CATALOG_DIFF_FORMATS = ['text', 'json', 'yaml', 'markdown'] as const;
export type CatalogDiffFormat = (typeof CATALOG_DIFF_FORMATS)[number];

/**
 * The diff as `text` (one line per change under each package's name; `no changes` when there are none), `json`
 * or `yaml` (the {@link CatalogDiff} structure itself), or `markdown` for a pull request's comment (a summary
 * table of counts per package, then a section per package). The same diff always gives the same bytes.
 */
export function renderCatalogDiff(diff: CatalogDiff, format: CatalogDiffFormat): string {
  switch (format) {
    case 'json':
      return `${JSON.stringify(diff, null, 2)}\n`;
    case 'yaml':
      return yamlLibrary().stringify(diff, { lineWidth: 0 });
    case 'markdown':
      return renderMarkdown(diff);
    case 'text':
      return renderText(diff);
  }
}

function renderText(diff: CatalogDiff): string {
  if (diff.packages.length === 0) return 'no changes\n';
  const lines: string[] = [];
  for (const pkg of diff.packages) {
    lines.push(`package ${pkg.name}`);
    for (const change of packageChanges(pkg)) lines.push(`  ${marker(change)} ${change.line}`);
  }
  return `${lines.join('\n')}\n`;
}

/** `+` added, `-` removed, `~` changed: how a reader scans a list of changes. */
function marker(change: PackageChange): string {
  return change.action === 'added' ? '+' : change.action === 'removed' ? '-' : '~';
}

function renderMarkdown(diff: CatalogDiff): string {
  const out = ['## Catalog changes', ''];
  if (diff.packages.length === 0) return `${[...out, 'No changes.'].join('\n')}\n`;
  const changes = diff.packages.map((pkg) => ({ pkg, changes: packageChanges(pkg) }));
  out.push(
    '| Package | Status | Added | Removed | Changed | Warnings |',
    '| --- | --- | ---: | ---: | ---: | ---: |',
  );
  for (const { pkg, changes: list } of changes) {
    const count = (test: (c: PackageChange) => boolean) => String(list.filter(test).length);
    out.push(
      `| ${code(pkg.name)} | ${pkg.status} | ${count((c) => c.action === 'added')} | ${count((c) => c.action === 'removed')} | ${count((c) => c.action === 'changed')} | ${count((c) => c.severity === 'warning')} |`,
    );
  }
  for (const { pkg, changes: list } of changes) {
    out.push('', `### ${code(pkg.name)}`, '');
    for (const change of list) {
      const warning = change.severity === 'warning' ? '**warning:** ' : '';
      out.push(`- ${warning}${escapeMarkdown(change.line)}`);
    }
  }
  return `${out.join('\n')}\n`;
}

/** A code span, with a delimiter longer than any run of backticks in the text; pipes escaped for tables. */
function code(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const padded = text.startsWith('`') || text.endsWith('`') ? ` ${text} ` : text;
  return `${fence}${padded.replaceAll('|', '\\|')}${fence}`;
}

/** Text with what GitHub would read as markup (emphasis, links, HTML, tables) escaped. */
function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_[\]<>|#~]/g, (c) => `\\${c}`);
}
