import { type CelInput, type CelResult, parse, plan } from '@bufbuild/cel';
import { RE2JS } from '@bufbuild/re2';
import { kubernetesCelEnv, SUPPORTED_FUNCTIONS } from './environment.js';
import type { CelLimits } from './limits.js';
import { type CrdSchema, mapValueSchema } from './schema.js';

/** A rule's or message expression's program, or why it cannot run. */
export type CompiledExpression =
  | {
      readonly kind: 'program';
      readonly run: (self: CelInput, oldSelf: CelInput) => CelResult;
      readonly usesOldSelf: boolean;
      /** Expression nodes, for the cost estimate. */
      readonly size: number;
      /** Deepest nesting of comprehensions (`all`, `exists`, `map`, `filter`…). */
      readonly loopDepth: number;
      readonly expr: Expr;
    }
  /** Kubernetes refuses the CRD for it. */
  | { readonly kind: 'invalid'; readonly reason: string }
  /** It may be valid for Kubernetes, but this evaluator cannot tell what it answers. */
  | { readonly kind: 'unsupported'; readonly reason: string };

/** A node of a parsed expression. */
type Expr = ReturnType<typeof parse>['expr'];

const TYPE_NAMES = new Set([
  'int',
  'uint',
  'double',
  'bool',
  'string',
  'bytes',
  'list',
  'map',
  'null_type',
  'type',
  'dyn',
]);
const VARIABLES = new Set(['self', 'oldSelf']);
const IMPLICIT_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);
const REGEX_FUNCTIONS = new Set(['matches', 'find', 'findAll']);

const env = kubernetesCelEnv();
const cache = new Map<string, CompiledExpression>();

/** Parses and plans one expression, once per text, refusing it when it breaks the limits. */
export function compileExpression(text: string, limits: CelLimits): CompiledExpression {
  if (text.length > limits.maxExpressionLength) {
    return {
      kind: 'unsupported',
      reason: `expression of ${text.length} characters exceeds the limit of ${limits.maxExpressionLength}`,
    };
  }
  const cached = cache.get(text);
  if (cached !== undefined) return cached;
  const compiled = compileUncached(text);
  if (cache.size > 10_000) cache.clear();
  cache.set(text, compiled);
  return compiled;
}

function compileUncached(text: string): CompiledExpression {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(text);
  } catch (error) {
    if (/\.\?|\[\?|optional\./.test(text)) return { kind: 'unsupported', reason: 'uses optional values' };
    return { kind: 'invalid', reason: `does not parse: ${oneLine(error)}` };
  }
  const walk: Walk = {
    functions: new Set<string>(),
    badPatterns: new Set<string>(),
    unknown: new Set<string>(),
    usesOldSelf: false,
    size: 0,
  };
  const loopDepth = inspect(parsed.expr, new Set(), walk);
  const unsupported = [...walk.functions].filter((f) => !SUPPORTED_FUNCTIONS.has(f)).sort();
  if (unsupported.length > 0) return { kind: 'unsupported', reason: `uses ${unsupported.join(', ')}` };
  if (walk.badPatterns.size > 0) {
    return { kind: 'invalid', reason: `invalid regular expression ${[...walk.badPatterns].join(', ')}` };
  }
  if (walk.unknown.size > 0) {
    return { kind: 'invalid', reason: `undeclared reference to ${[...walk.unknown].sort().join(', ')}` };
  }
  let program: ReturnType<typeof plan>;
  try {
    program = plan(env, parsed);
  } catch (error) {
    return { kind: 'invalid', reason: oneLine(error) };
  }
  return {
    kind: 'program',
    expr: parsed.expr,
    run: (self, oldSelf) => program({ self, oldSelf }),
    usesOldSelf: walk.usesOldSelf,
    size: walk.size,
    loopDepth,
  };
}

interface Walk {
  functions: Set<string>;
  badPatterns: Set<string>;
  unknown: Set<string>;
  usesOldSelf: boolean;
  size: number;
}

/** Collects the functions and names an expression uses; returns its comprehension depth. */
function inspect(expr: Expr | undefined, bound: ReadonlySet<string>, walk: Walk): number {
  if (expr === undefined) return 0;
  walk.size++;
  const kind = expr.exprKind;
  switch (kind.case) {
    case 'identExpr': {
      const name = kind.value.name;
      if (name === 'oldSelf') walk.usesOldSelf = true;
      if (!bound.has(name) && !VARIABLES.has(name) && !TYPE_NAMES.has(name)) walk.unknown.add(name);
      return 0;
    }
    case 'selectExpr':
      return inspect(kind.value.operand, bound, walk);
    case 'callExpr': {
      const call = kind.value;
      // `strings.quote(x)`, `format.dns1123Label()`: a qualified function name, parsed as a call on a name.
      const namespace =
        call.target?.exprKind.case === 'identExpr' &&
        !bound.has(call.target.exprKind.value.name) &&
        !VARIABLES.has(call.target.exprKind.value.name)
          ? call.target.exprKind.value.name
          : undefined;
      walk.functions.add(namespace === undefined ? call.function : `${namespace}.${call.function}`);
      // The API server compiles constant patterns with the rule, refusing the CRD for a bad one.
      const pattern = REGEX_FUNCTIONS.has(call.function) ? call.args[0]?.exprKind : undefined;
      if (pattern?.case === 'constExpr' && pattern.value.constantKind.case === 'stringValue') {
        try {
          RE2JS.compile(pattern.value.constantKind.value);
        } catch (error) {
          walk.badPatterns.add(`${JSON.stringify(pattern.value.constantKind.value)} (${oneLine(error)})`);
        }
      }
      let depth = namespace === undefined ? inspect(call.target, bound, walk) : 0;
      for (const arg of call.args) depth = Math.max(depth, inspect(arg, bound, walk));
      return depth;
    }
    case 'listExpr':
      return Math.max(0, ...kind.value.elements.map((e) => inspect(e, bound, walk)));
    case 'structExpr':
      return Math.max(
        0,
        ...kind.value.entries.map((e) =>
          Math.max(
            e.keyKind.case === 'mapKey' ? inspect(e.keyKind.value, bound, walk) : 0,
            inspect(e.value, bound, walk),
          ),
        ),
      );
    case 'comprehensionExpr': {
      const c = kind.value;
      const inner = new Set([...bound, c.iterVar, c.iterVar2, c.accuVar].filter((v) => v !== ''));
      const range = inspect(c.iterRange, bound, walk);
      const init = inspect(c.accuInit, inner, walk);
      const body = Math.max(inspect(c.loopCondition, inner, walk), inspect(c.loopStep, inner, walk));
      return Math.max(range, init, body + 1, inspect(c.result, inner, walk));
    }
    default:
      return 0;
  }
}

/**
 * A rule compiled for the schema node that declares it: as {@link compileExpression}, and invalid where it
 * selects a field the node's schema does not have, as the API server's type check refuses it.
 */
export function compileRule(
  text: string,
  schema: CrdSchema,
  root: boolean,
  limits: CelLimits,
): CompiledExpression {
  const compiled = compileExpression(text, limits);
  if (compiled.kind !== 'program') return compiled;
  const unknown = new Set<string>();
  // At the root, rules see only the name and generateName of metadata.
  const self = root ? { ...schema, properties: { ...schema.properties, metadata: ROOT_METADATA } } : schema;
  fieldsOf(compiled.expr, self, unknown);
  if (unknown.size === 0) return compiled;
  return { kind: 'invalid', reason: `undefined field ${[...unknown].sort().join(', ')}` };
}

const ROOT_METADATA: CrdSchema = {
  type: 'object',
  properties: { name: { type: 'string' }, generateName: { type: 'string' } },
};

/** What a schema says an expression's value is: a schema node, or nothing known. */
function fieldsOf(expr: Expr | undefined, self: CrdSchema, unknown: Set<string>): CrdSchema | undefined {
  if (expr === undefined) return undefined;
  const kind = expr.exprKind;
  switch (kind.case) {
    case 'identExpr':
      return VARIABLES.has(kind.value.name) ? self : undefined;
    case 'selectExpr': {
      const operand = fieldsOf(kind.value.operand, self, unknown);
      if (operand === undefined) return undefined;
      const field = kind.value.field;
      const property = operand.properties?.[field];
      if (property !== undefined) return property;
      const values = mapValueSchema(operand);
      if (values !== undefined) return values;
      // An object's fields are its declared properties, even where unknown fields are preserved; only a node
      // without a type is open.
      const closed = operand.type === 'object' && operand.additionalProperties === undefined;
      // apiVersion, kind and metadata are there on every object the API server stores, declared or not.
      if (closed && !(IMPLICIT_FIELDS.has(field) && operand !== ROOT_METADATA)) unknown.add(`'${field}'`);
      return undefined;
    }
    case 'callExpr':
      fieldsOf(kind.value.target, self, unknown);
      for (const arg of kind.value.args) fieldsOf(arg, self, unknown);
      return undefined;
    case 'listExpr':
      for (const e of kind.value.elements) fieldsOf(e, self, unknown);
      return undefined;
    case 'structExpr':
      for (const e of kind.value.entries) {
        if (e.keyKind.case === 'mapKey') fieldsOf(e.keyKind.value, self, unknown);
        fieldsOf(e.value, self, unknown);
      }
      return undefined;
    case 'comprehensionExpr': {
      const c = kind.value;
      for (const e of [c.iterRange, c.accuInit, c.loopCondition, c.loopStep, c.result])
        fieldsOf(e, self, unknown);
      return undefined;
    }
    default:
      return undefined;
  }
}

/** An error's text on one line. */
export function oneLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim();
}
