import type { CatalogEdge, EdgeBundle } from '../edges.js';
import type { Finding } from '../findings.js';
import { type CompiledExpression, compileExpression, compileRule } from './compile.js';
import { deepEqual, EvaluationBudget, type EvaluationMode, evaluateRules } from './evaluate.js';
import { type CrdVersion, crdVersionFor, crdVersionsOf, type Example, examplesOf } from './examples.js';
import { type CelLimits, DEFAULT_CEL_LIMITS } from './limits.js';
import type { RuleOutcome } from './outcome.js';
import type { CrdSchema, ValidationRule } from './schema.js';

/** Where a bundle's findings are reported: its package and name. */
export interface CelBundleContext {
  readonly package: string;
  readonly bundle: string;
  readonly limits?: CelLimits;
}

/**
 * The CEL findings of one bundle: rules of its CRDs that do not compile (`cel/rule-invalid`), rules it cannot
 * evaluate (`cel/not-evaluated`), and examples of its CSV's `alm-examples` that its own CRDs' rules refuse
 * (`cel/example-refused`), as the API server would on creating them.
 */
export function celFindingsOfBundle(
  objects: readonly Record<string, unknown>[],
  context: CelBundleContext = { package: '', bundle: '' },
): Finding[] {
  const limits = context.limits ?? DEFAULT_CEL_LIMITS;
  const base = { package: context.package };
  const about = `bundle ${context.bundle}`;
  const findings: Finding[] = [];
  const versions = crdVersionsOf(objects);
  const crowded = new Set<CrdVersion>();
  for (const v of versions) {
    const ruleSet = compiledRules(v, limits);
    if (ruleSet.length > limits.maxRulesPerVersion) {
      crowded.add(v);
      findings.push({
        ...base,
        rule: 'cel/not-evaluated',
        severity: 'info',
        subject: `${v.crd} ${v.version}`,
        message: `${about}: CRD ${v.crd} ${v.version} not evaluated: ${ruleSet.length} rules exceed the limit of ${limits.maxRulesPerVersion}`,
      });
      continue;
    }
    for (const { rule, compiled } of ruleSet) {
      if (compiled.kind === 'program') continue;
      findings.push(
        compiled.kind === 'invalid'
          ? {
              ...base,
              rule: 'cel/rule-invalid',
              severity: 'error',
              subject: `${v.crd} ${v.version}`,
              message: `${about}: CRD ${v.crd} ${v.version} rule ${quote(rule.rule)} is invalid: ${compiled.reason}`,
            }
          : notEvaluated(base, about, v, rule, compiled.reason),
      );
    }
  }
  const bundleExamples = examplesOf(objects);
  if (bundleExamples === undefined) return findings;
  if ('malformed' in bundleExamples) {
    findings.push({
      ...base,
      rule: 'cel/examples-malformed',
      severity: 'warning',
      subject: bundleExamples.csv,
      message: `${about}: CSV ${bundleExamples.csv} has an alm-examples annotation that cannot be read: ${bundleExamples.malformed}`,
    });
    return findings;
  }
  const budget = new EvaluationBudget(limits);
  for (const example of limited(bundleExamples.examples, limits, base, about, findings)) {
    const v = crdVersionFor(versions, example);
    if (v?.schema === undefined || crowded.has(v)) continue;
    for (const outcome of evaluateOrRefuse(v, example, undefined, 'create', budget, limits)) {
      if (outcome.kind === 'refused' || outcome.kind === 'schema') {
        findings.push({
          ...base,
          rule: 'cel/example-refused',
          severity: 'error',
          subject: `${v.crd} ${outcome.path}`,
          message: `${about}: example ${exampleName(example)} is refused by CRD ${v.crd}${beforeRules(outcome)}: ${outcome.message}`,
        });
      } else if (outcome.kind === 'not-evaluated') {
        findings.push(notEvaluated(base, about, v, outcome.rule, outcome.reason));
      }
    }
  }
  return dedupe(findings);
}

/**
 * The CEL findings of one upgrade edge: objects like the previous bundle's examples that a rule of the new
 * bundle's CRDs refuses (`cel/previous-example-refused`; only for versions the new CRD still serves), and the
 * new examples that the new CRDs' transition rules refuse as updates of the previous examples of the same kind
 * and name (`cel/transition-refused`). The new bundle's own findings are {@link celFindingsOfBundle}'s.
 */
export function celFindingsOfEdge(edge: CatalogEdge, limits: CelLimits = DEFAULT_CEL_LIMITS): Finding[] {
  const base = { package: edge.package, edge: { from: edge.from.name, to: edge.to.name } };
  const about = `upgrade ${edge.from.name} -> ${edge.to.name}`;
  const missing = [edge.from, edge.to].filter((b) => b.objects() === undefined);
  if (missing.length > 0) {
    return missing.map((b: EdgeBundle) => ({
      ...base,
      rule: 'cel/not-evaluated',
      severity: 'info' as const,
      subject: b.name,
      message: `${about}: CEL rules not checked: bundle ${b.name} carries no manifests`,
    }));
  }
  const before = edge.from.objects() ?? [];
  const after = edge.to.objects() ?? [];
  // A version with more rules than the limit is said once, by the bundle's findings.
  const versions = crdVersionsOf(after).filter(
    (v) => compiledRules(v, limits).length <= limits.maxRulesPerVersion,
  );
  const oldExamples = examplesOf(before);
  const newExamples = examplesOf(after);
  const previous = oldExamples !== undefined && 'examples' in oldExamples ? oldExamples.examples : [];
  const current = newExamples !== undefined && 'examples' in newExamples ? newExamples.examples : [];
  const findings: Finding[] = [];
  const budget = new EvaluationBudget(limits);
  for (const old of limited(previous, limits, base, about, findings)) {
    const v = crdVersionFor(versions, old);
    if (v?.schema === undefined || !v.served) continue;
    if (current.some((e) => deepEqual(e.object, old.object))) continue;
    for (const outcome of evaluateOrRefuse(v, old, undefined, 'create', budget, limits)) {
      if (outcome.kind !== 'refused' && outcome.kind !== 'schema') continue;
      findings.push({
        ...base,
        rule: 'cel/previous-example-refused',
        severity: 'warning',
        subject: `${v.crd} ${outcome.path}`,
        message: `${about}: an object like ${edge.from.name}'s example ${exampleName(old)} is refused by CRD ${v.crd} of ${edge.to.name}${beforeRules(outcome)}: ${outcome.message}`,
      });
    }
    const next = current.find((e) => e.group === old.group && e.kind === old.kind && e.name === old.name);
    const nextVersion = next === undefined ? undefined : crdVersionFor(versions, next);
    if (next === undefined || nextVersion?.schema === undefined) continue;
    for (const outcome of evaluateOrRefuse(nextVersion, next, old.object, 'transitions', budget, limits)) {
      if (outcome.kind === 'schema') continue;
      findings.push(
        outcome.kind === 'refused'
          ? {
              ...base,
              rule: 'cel/transition-refused',
              severity: 'warning',
              subject: `${nextVersion.crd} ${outcome.path}`,
              message: `${about}: updating ${edge.from.name}'s example ${exampleName(old)} to ${edge.to.name}'s is refused by CRD ${nextVersion.crd}: ${outcome.message}`,
            }
          : notEvaluated(base, about, nextVersion, outcome.rule, outcome.reason),
      );
    }
  }
  return dedupe(findings);
}

function evaluateOrRefuse(
  v: CrdVersion,
  example: Example,
  old: Record<string, unknown> | undefined,
  mode: EvaluationMode,
  budget: EvaluationBudget,
  limits: CelLimits,
): RuleOutcome[] {
  const length = JSON.stringify(example.object).length;
  if (length > limits.maxObjectLength) {
    const rule: ValidationRule = { rule: '*' };
    return [
      {
        kind: 'not-evaluated',
        rule,
        reason: `example ${exampleName(example)} of ${length} characters exceeds the limit of ${limits.maxObjectLength}`,
      },
    ];
  }
  return evaluateRules(v.schema as CrdSchema, example.object, old, mode, budget);
}

function limited<T>(
  examples: readonly T[],
  limits: CelLimits,
  base: Pick<Finding, 'package' | 'edge'>,
  about: string,
  findings: Finding[],
): readonly T[] {
  if (examples.length <= limits.maxObjects) return examples;
  findings.push({
    ...base,
    rule: 'cel/not-evaluated',
    severity: 'info',
    message: `${about}: ${examples.length} examples exceed the limit of ${limits.maxObjects}; the rest are not evaluated`,
  });
  return examples.slice(0, limits.maxObjects);
}

function notEvaluated(
  base: Pick<Finding, 'package' | 'edge'>,
  about: string,
  v: CrdVersion,
  rule: ValidationRule,
  reason: string,
): Finding {
  const what = rule.rule === '*' ? '' : ` rule ${quote(rule.rule)}`;
  return {
    ...base,
    rule: 'cel/not-evaluated',
    severity: 'info',
    subject: `${v.crd} ${v.version}`,
    message: `${about}: CRD ${v.crd} ${v.version}${what} not evaluated: ${reason}`,
  };
}

/** Every rule of a CRD version's schema, compiled, with its `messageExpression` checked alongside. */
function compiledRules(
  v: CrdVersion,
  limits: CelLimits,
): { rule: ValidationRule; compiled: CompiledExpression }[] {
  const out: { rule: ValidationRule; compiled: CompiledExpression }[] = [];
  const walk = (schema: CrdSchema | undefined, root = false): void => {
    if (schema === undefined) return;
    for (const rule of schema['x-kubernetes-validations'] ?? []) {
      const compiled = compileRule(rule.rule, schema, root, limits);
      const message = rule.messageExpression ? compileExpression(rule.messageExpression, limits) : undefined;
      out.push({
        rule,
        compiled:
          compiled.kind === 'program' && message !== undefined && message.kind !== 'program'
            ? { kind: message.kind, reason: `messageExpression ${message.reason}` }
            : compiled,
      });
    }
    for (const child of Object.values(schema.properties ?? {})) walk(child);
    walk(schema.items);
    if (typeof schema.additionalProperties === 'object') walk(schema.additionalProperties);
  };
  walk(v.schema, true);
  return out;
}

/** Says when the API server refuses the object by its schema, before any of its rules run. */
function beforeRules(outcome: RuleOutcome): string {
  return outcome.kind === 'schema' ? ' before its rules run' : '';
}

function exampleName(example: Example): string {
  return `${example.kind} ${example.name === '' ? '(unnamed)' : example.name}`;
}

function quote(text: string): string {
  return JSON.stringify(text.trim());
}

function dedupe(findings: Finding[]): Finding[] {
  const seen = new Set<string>();
  return findings.filter((f) => {
    const key = `${f.rule}\u0000${f.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
