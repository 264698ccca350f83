import { yamlLibrary } from '../../yaml-library.js';
import type { Finding } from '../findings.js';
import { type PackagePaths, pathEnd, selectionName, type UpgradePath } from './types.js';

/** The formats the paths print in. */
export const PATHS_FORMATS = ['text', 'json', 'yaml', 'markdown'] as const;
export type PathsFormat = (typeof PATHS_FORMATS)[number];

/** What `catalog upgrade-paths` reports: the paths of each package under each set of rules, and any findings. */
export interface PathsReport {
  readonly paths: readonly PackagePaths[];
  /** Present when the paths were compared with a previous catalog. */
  readonly findings?: readonly Finding[];
}

/** The report as text (one line per installed bundle), JSON, YAML or a Markdown table per package and rules. */
export function renderPaths(report: PathsReport, format: PathsFormat): string {
  switch (format) {
    case 'json':
      return `${JSON.stringify(report, null, 2)}\n`;
    case 'yaml':
      return yamlLibrary().stringify(report, { lineWidth: 0 });
    case 'markdown':
      return renderMarkdown(report);
    default:
      return renderText(report);
  }
}

const RULES_TITLE = { v0: 'OLM v0', v1: 'OLM v1' } as const;

/** `1.0.0 -> 1.2.0 (skipRange) -> 1.3.0 (replaces)`: the versions the path passes, with the edge taken. */
function route(path: UpgradePath): string {
  const steps = path.steps.map(
    (s) => `${s.to.version}${s.to.deprecated ? ' [deprecated]' : ''} (${s.via.join(', ')})`,
  );
  const start = `${path.from.version}${path.from.deprecated ? ' [deprecated]' : ''}`;
  return [start, ...steps].join(' -> ');
}

/** `head in 2 steps`, `stuck at op.v1.0.1`, `cycle at …`, `error: …`. */
function outcome(path: UpgradePath): string {
  const n = path.steps.length;
  switch (path.outcome) {
    case 'head':
      return n === 0 ? 'head' : `head in ${n} step${n === 1 ? '' : 's'}`;
    case 'stuck':
      return `stuck at ${pathEnd(path).name}`;
    case 'cycle':
      return `cycle at ${pathEnd(path).name}`;
    default:
      return `error: ${path.error ?? ''}`;
  }
}

function installedName(path: UpgradePath): string {
  return path.inCatalog ? path.from.name : `${path.from.name} (no longer in the catalog)`;
}

function renderText(report: PathsReport): string {
  const lines: string[] = [];
  for (const pkg of report.paths) {
    lines.push(`${pkg.package} (${RULES_TITLE[pkg.rules]})`);
    for (const selection of pkg.channels) {
      lines.push(`  ${selectionName(selection.channel)} (heads: ${selection.heads.join(', ') || 'none'})`);
      for (const path of selection.paths) {
        lines.push(`    ${installedName(path)}: ${route(path)}: ${outcome(path)}`);
      }
    }
  }
  for (const f of report.findings ?? []) lines.push(`${f.severity} ${f.rule}: ${f.message}`);
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

/** A Markdown table cell: no line breaks, pipes escaped. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

function renderMarkdown(report: PathsReport): string {
  const parts: string[] = [];
  for (const pkg of report.paths) {
    const rows = pkg.channels.flatMap((selection) =>
      selection.paths.map(
        (path) =>
          `| ${cell(selectionName(selection.channel))} | ${cell(installedName(path))} | ${cell(route(path))} | ${cell(outcome(path))} |`,
      ),
    );
    parts.push(
      [
        `## ${pkg.package} (${RULES_TITLE[pkg.rules]})`,
        '',
        '| Channels | Installed | Path | Outcome |',
        '| --- | --- | --- | --- |',
        ...rows,
      ].join('\n'),
    );
  }
  if (report.findings !== undefined) {
    const rows = report.findings.map((f) => `| ${f.severity} | ${f.rule} | ${cell(f.message)} |`);
    parts.push(
      report.findings.length === 0
        ? '## Findings\n\nNone.'
        : ['## Findings', '', '| Severity | Rule | Message |', '| --- | --- | --- |', ...rows].join('\n'),
    );
  }
  return parts.length === 0 ? '' : `${parts.join('\n\n')}\n`;
}
