import { goJsonMarshal } from '../go-compat/go-json.js';
import { formatValidationMessage } from './bundle-format.js';
import { formatValidationError, type ManifestResult } from './result.js';
import type { BundleValidationReport } from './validate-bundle-dir.js';

/** One line of operator-sdk's output (`json-alpha1` `outputs[]`). */
export interface ValidationOutput {
  readonly type: 'error' | 'warning' | 'info';
  readonly message: string;
}

/** The `operator-sdk bundle validate -o json-alpha1` document. */
export interface JsonAlpha1Result {
  readonly passed: boolean;
  /** `null` when there is nothing to report (Go marshals the empty slice as null). */
  readonly outputs: ValidationOutput[] | null;
}

/** Outputs of validator results as the SDK adds them: per result, warnings first, then errors. */
export function resultOutputs(results: readonly ManifestResult[]): ValidationOutput[] {
  const outputs: ValidationOutput[] = [];
  for (const result of results) {
    for (const e of result.errors)
      if (e.level === 'Warning') outputs.push({ type: 'warning', message: formatValidationError(e) });
    for (const e of result.errors)
      if (e.level === 'Error') outputs.push({ type: 'error', message: formatValidationError(e) });
  }
  return outputs;
}

/**
 * Every output of a report in operator-sdk's order: the format error (one message for all format problems),
 * then the validator results. A fatal problem, which makes the SDK exit before printing, is one error output.
 */
export function reportOutputs(report: BundleValidationReport): ValidationOutput[] {
  if (report.fatal !== undefined) return [{ type: 'error', message: report.fatal }];
  const outputs: ValidationOutput[] = [];
  if (report.formatErrors.length > 0) {
    outputs.push({ type: 'error', message: formatValidationMessage(report.dir, report.formatErrors) });
  }
  outputs.push(...resultOutputs(report.results));
  return outputs;
}

/** The report as the `json-alpha1` object. */
export function toJsonAlpha1(report: BundleValidationReport): JsonAlpha1Result {
  const outputs = reportOutputs(report);
  return { passed: report.passed, outputs: outputs.length > 0 ? outputs : null };
}

/** `operator-sdk bundle validate -o json-alpha1` output: 4-space indented JSON and a newline. */
export function formatJsonAlpha1(report: BundleValidationReport): string {
  return `${goJsonMarshal(toJsonAlpha1(report), { sortKeys: false, indent: '    ' })}\n`;
}

const LEVEL_TAG = { error: 'ERRO', warning: 'WARN', info: 'INFO' } as const;

/**
 * `operator-sdk bundle validate` text output (logrus on a terminal): `WARN[0000] …` / `ERRO[0000] …` lines and,
 * when the bundle passed, `INFO[0000] All validation tests have completed successfully`.
 */
export function formatText(report: BundleValidationReport): string {
  const lines = reportOutputs(report).map((o) => `${LEVEL_TAG[o.type]}[0000] ${o.message}`);
  if (report.passed) lines.push('INFO[0000] All validation tests have completed successfully');
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}
