import { type CelInput, isCelError } from '@bufbuild/cel';
import { asValidated } from './as-validated.js';
import { type CompiledExpression, compileExpression, compileRule, oneLine } from './compile.js';
import { CelUnsupportedError } from './environment.js';
import type { CelLimits } from './limits.js';
import type { RuleOutcome } from './outcome.js';
import { join, joinFieldPath, pathText } from './paths.js';
import { type CrdSchema, isRecord, mapValueSchema, type ValidationRule } from './schema.js';
import { schemaErrors } from './schema-errors.js';
import { celValueOf } from './values.js';

/**
 * Which rules run: `create` every rule without `oldSelf`; `update` as the API server does on an update (rules
 * with `oldSelf` where the old object has the value, the others only where the value changed, as validation
 * ratcheting skips unchanged values); `transitions` only the rules with `oldSelf`.
 */
export type EvaluationMode = 'create' | 'update' | 'transitions';

/** Shared by the evaluations of one call: the limits and the time left. */
export class EvaluationBudget {
  readonly #deadline: number;
  constructor(readonly limits: CelLimits) {
    this.#deadline = performance.now() + limits.timeBudgetMs;
  }
  get exhausted(): boolean {
    return performance.now() > this.#deadline;
  }
}

/**
 * Evaluates the rules of a CRD version's schema on an object (and on its old version, for `update` and
 * `transitions`), each at the schema node that declares it, for each element where it sits on `items` or
 * `additionalProperties`; returns what did not pass.
 */
export function evaluateRules(
  schema: CrdSchema,
  object: Record<string, unknown>,
  old: Record<string, unknown> | undefined,
  mode: EvaluationMode,
  budget: EvaluationBudget,
): RuleOutcome[] {
  const out: RuleOutcome[] = [];
  const seen = new Set<string>();
  const report = (o: RuleOutcome) => {
    // A rule that cannot run is said once, not once per element.
    const key = o.kind === 'refused' || o.kind === 'schema' ? undefined : `${o.kind}\u0000${o.rule.rule}`;
    if (key !== undefined) {
      if (seen.has(key)) return;
      seen.add(key);
    }
    out.push(o);
  };
  // What the API server validates: non-nullable nulls pruned, then defaults applied.
  const validated = asValidated(schema, object);
  const validatedOld = old === undefined ? undefined : asValidated(schema, old);
  if (mode !== 'transitions') {
    const errors = schemaErrors(schema, validated, '', true);
    if (errors.length > 0) return errors;
  }
  visit(schema, validated, validatedOld, '', true, { mode, budget, report });
  return out;
}

interface Visit {
  readonly mode: EvaluationMode;
  readonly budget: EvaluationBudget;
  readonly report: (o: RuleOutcome) => void;
}

function visit(schema: CrdSchema, value: unknown, old: unknown, path: string, root: boolean, v: Visit): void {
  if (value === undefined || value === null) return;
  const rules = schema['x-kubernetes-validations'] ?? [];
  if (rules.length > 0) evaluateAt(schema, rules, value, old, path, root, v);
  if (isRecord(value)) {
    const oldRecord = isRecord(old) ? old : undefined;
    for (const [key, child] of Object.entries(schema.properties ?? {})) {
      if (root && key === 'metadata') continue;
      visit(child, value[key], oldRecord?.[key], join(path, key), false, v);
    }
    const values = mapValueSchema(schema);
    if (values !== undefined) {
      for (const [key, child] of Object.entries(value)) {
        if (schema.properties?.[key] !== undefined) continue;
        visit(values, child, oldRecord?.[key], `${path}[${key}]`, false, v);
      }
    }
  } else if (Array.isArray(value) && schema.items !== undefined) {
    const oldList = Array.isArray(old) ? old : undefined;
    value.forEach((item, i) => {
      visit(schema.items as CrdSchema, item, correlated(schema, item, oldList), `${path}[${i}]`, false, v);
    });
  }
}

/**
 * The old element an element is compared with: by key in a `map` list, by value in a `set` list; an `atomic`
 * list's elements have none, so rules with `oldSelf` do not run on them.
 */
function correlated(schema: CrdSchema, item: unknown, oldList: readonly unknown[] | undefined): unknown {
  if (oldList === undefined) return undefined;
  const listType = schema['x-kubernetes-list-type'];
  if (listType === 'map' && isRecord(item)) {
    const keys = schema['x-kubernetes-list-map-keys'] ?? [];
    return oldList.find((o) => isRecord(o) && keys.every((k) => deepEqual(o[k], item[k])));
  }
  if (listType === 'set') return oldList.find((o) => deepEqual(o, item));
  return undefined;
}

function evaluateAt(
  schema: CrdSchema,
  rules: readonly ValidationRule[],
  value: unknown,
  old: unknown,
  path: string,
  root: boolean,
  v: Visit,
): void {
  let self: CelInput | undefined;
  let oldSelf: CelInput | undefined;
  const limits = v.budget.limits;
  for (const rule of rules) {
    const compiled = compileRule(rule.rule, schema, root, limits);
    if (compiled.kind !== 'program') {
      v.report({
        kind: compiled.kind === 'invalid' ? 'invalid' : 'not-evaluated',
        rule,
        reason: compiled.reason,
      });
      continue;
    }
    if (rule.optionalOldSelf) {
      v.report({ kind: 'not-evaluated', rule, reason: 'uses optionalOldSelf' });
      continue;
    }
    const transition = compiled.usesOldSelf;
    if (transition && (v.mode === 'create' || old === undefined || old === null)) continue;
    if (!transition && v.mode === 'transitions') continue;
    if (!transition && v.mode === 'update' && deepEqual(value, old)) continue;
    if (v.budget.exhausted) {
      v.report({
        kind: 'not-evaluated',
        rule,
        reason: `the time budget of ${limits.timeBudgetMs} ms is spent`,
      });
      continue;
    }
    const cost = estimatedCost(compiled, value);
    if (cost > limits.maxEstimatedCost) {
      v.report({
        kind: 'not-evaluated',
        rule,
        reason: `estimated cost ${cost.toExponential(1)} exceeds the limit of ${limits.maxEstimatedCost}`,
      });
      continue;
    }
    self ??= celValueOf(value, schema, root);
    if (transition) oldSelf ??= celValueOf(old, schema, root);
    const boundOld: CelInput = transition ? (oldSelf ?? null) : null;
    let result: ReturnType<typeof compiled.run>;
    try {
      result = compiled.run(self, boundOld);
    } catch (error) {
      v.report({ kind: 'not-evaluated', rule, reason: oneLine(error) });
      continue;
    }
    if (isCelError(result)) {
      const unsupported = causeOf(result, CelUnsupportedError);
      if (unsupported !== undefined) {
        v.report({ kind: 'not-evaluated', rule, reason: unsupported.message });
        continue;
      }
      // The API server names the schema type, not the value, when a rule fails to evaluate.
      const message = kubernetesWording(result.message);
      const detail = /^no such overload|^no matching overload/.test(message)
        ? `'${message}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleText(rule)}`
        : `${message} evaluating rule: ${ruleText(rule)}`;
      const at = pathText(path);
      v.report({
        kind: 'refused',
        rule,
        path: at,
        message: `${at}: Invalid value: "${schema.type ?? ''}": ${detail}`,
      });
      continue;
    }
    if (result === true) continue;
    const at = rule.fieldPath ? joinFieldPath(path, rule.fieldPath) : path;
    const detail = messageOf(rule, self, boundOld, limits);
    v.report({
      kind: 'refused',
      rule,
      path: pathText(at),
      message: fieldError(pathText(at), value, detail, rule.reason),
    });
  }
}

/** An evaluation error in the words of cel-go, which the API server prints. */
function kubernetesWording(message: string): string {
  return message
    .replace(/^field not found: /, 'no such key: ')
    .replace(/^index (-?\d+) out of bounds \[.*\)$/, 'index out of bounds: $1')
    .replace(/^int divide by zero$/, 'division by zero')
    .replace(/^int modulus by zero$/, 'modulus by zero')
    .replace(/^int overflow.*$/, 'integer overflow')
    .replace(/^uint overflow.*$/, 'unsigned integer overflow');
}

/** The rule's message: its `messageExpression` when that gives a one-line string, else `message`, else the rule. */
function messageOf(rule: ValidationRule, self: CelInput, oldSelf: CelInput, limits: CelLimits): string {
  if (rule.messageExpression) {
    const compiled = compileExpression(rule.messageExpression, limits);
    if (compiled.kind === 'program') {
      try {
        const text = compiled.run(self, oldSelf);
        if (typeof text === 'string' && text.trim() !== '' && !/[\r\n]/.test(text) && text.length <= 5000) {
          return text;
        }
      } catch {
        // falls back to the message, as the API server does
      }
    }
  }
  return rule.message?.trim() ? rule.message.trim() : `failed rule: ${ruleText(rule)}`;
}

function ruleText(rule: ValidationRule): string {
  return rule.message?.trim() ? rule.message.trim() : rule.rule.trim();
}

/**
 * A field error as the API server words it for the rule's `reason`: a scalar value is printed (strings quoted),
 * an object's or list's is left out.
 */
function fieldError(path: string, value: unknown, detail: string, reason?: string): string {
  const shown =
    typeof value === 'string'
      ? `${JSON.stringify(value)}: `
      : typeof value === 'number' || typeof value === 'boolean'
        ? `${value}: `
        : '';
  switch (reason) {
    case 'FieldValueForbidden':
      return `${path}: Forbidden: ${detail}`;
    case 'FieldValueRequired':
      return `${path}: Required value: ${detail}`;
    case 'FieldValueDuplicate':
      // The API server says which value repeats, not the rule's message.
      return `${path}: Duplicate value${shown === '' ? '' : `: ${shown.slice(0, -2)}`}`;
    default:
      return `${path}: Invalid value: ${shown}${detail}`;
  }
}

function estimatedCost(compiled: CompiledExpression & { kind: 'program' }, value: unknown): number {
  if (compiled.loopDepth === 0) return compiled.size;
  return compiled.size * (largest(value) + 1) ** compiled.loopDepth;
}

/** The largest list, map or string inside a value: what one comprehension may walk. */
function largest(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (Array.isArray(value)) return value.reduce((m: number, v) => Math.max(m, largest(v)), value.length);
  if (isRecord(value)) {
    return Object.values(value).reduce((m: number, v) => Math.max(m, largest(v)), Object.keys(value).length);
  }
  return 0;
}

function causeOf<T extends Error>(error: unknown, type: new (...args: never[]) => T): T | undefined {
  for (let e: unknown = error, i = 0; e !== undefined && e !== null && i < 10; i++) {
    if (e instanceof type) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Structural equality of two JSON values. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a))
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  return false;
}
