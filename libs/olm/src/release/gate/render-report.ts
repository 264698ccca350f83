import { yamlLibrary } from '../../yaml-library.js';
import type { Finding } from '../findings.js';
import type { AcceptedFinding, ReleaseReport } from './check-release.js';

/** The formats a release report is written in. */
export const RELEASE_REPORT_FORMATS = ['text', 'json', 'yaml', 'markdown'] as const;
export type ReleaseReportFormat = (typeof RELEASE_REPORT_FORMATS)[number];

/** The report as `format` writes it, ending in a newline. */
export function renderReleaseReport(report: ReleaseReport, format: ReleaseReportFormat): string {
  switch (format) {
    case 'json':
      return `${JSON.stringify(report, null, 2)}\n`;
    case 'yaml':
      return yamlLibrary().stringify(report, { lineWidth: 0 });
    case 'markdown':
      return markdown(report);
    default:
      return text(report);
  }
}

function summary(report: ReleaseReport): string {
  const edges = report.edges.length;
  const parts = [
    `${report.failing.length} failing`,
    `${report.accepted.length} accepted`,
    `${report.other.length} other`,
    ...(report.ignored > 0 ? [`${report.ignored} ignored`] : []),
  ];
  return `${parts.join(', ')} on ${edges} new upgrade edge${edges === 1 ? '' : 's'}`;
}

function text(report: ReleaseReport): string {
  const lines = [`${report.verdict === 'fail' ? 'FAIL' : 'PASS'}: ${summary(report)}`];
  const section = (title: string, findings: readonly Finding[], note?: (f: Finding) => string): void => {
    if (findings.length === 0) return;
    lines.push(`${title}:`);
    for (const f of findings)
      lines.push(`  ${f.severity.padEnd(7)} ${f.rule}: ${f.message}${note?.(f) ?? ''}`);
  };
  section('failing', report.failing);
  section('accepted', report.accepted, (f) => ` (accepted: ${(f as AcceptedFinding).acceptedBy.reason})`);
  section('other', report.other);
  return `${lines.join('\n')}\n`;
}

function markdown(report: ReleaseReport): string {
  const lines = [
    `## Release check: ${report.verdict === 'fail' ? 'fails' : 'passes'}`,
    '',
    `${summary(report)}.`,
  ];
  const cell = (s: string): string => s.replaceAll('\\', '\\\\').replaceAll('|', '\\|');
  const section = (title: string, findings: readonly Finding[], accepted: boolean): void => {
    if (findings.length === 0) return;
    lines.push('', `### ${title}`, '');
    lines.push(
      accepted ? '| Severity | Rule | Finding | Accepted because |' : '| Severity | Rule | Finding |',
    );
    lines.push(accepted ? '| --- | --- | --- | --- |' : '| --- | --- | --- |');
    for (const f of findings) {
      const row = [f.severity, `\`${f.rule}\``, cell(f.message)];
      if (accepted) row.push(cell((f as AcceptedFinding).acceptedBy.reason));
      lines.push(`| ${row.join(' | ')} |`);
    }
  };
  section('Failing', report.failing, false);
  section('Accepted', report.accepted, true);
  section('Other', report.other, false);
  return `${lines.join('\n')}\n`;
}
