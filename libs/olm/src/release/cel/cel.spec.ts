import { describe, expect, it } from 'vitest';
import type { CatalogEdge } from '../edges.js';
import type { Finding } from '../findings.js';
import { EvaluationBudget, evaluateRules } from './evaluate.js';
import { celFindingsOfBundle, celFindingsOfEdge } from './findings.js';
import { type CelLimits, DEFAULT_CEL_LIMITS } from './limits.js';
import type { CrdSchema, ValidationRule } from './schema.js';

const GROUP = 'cache.example.com';

/** A CRD `Memcached` whose `spec` has the given properties, served at the given versions. */
function crd(
  properties: Record<string, CrdSchema>,
  versions: { name: string; served?: boolean }[] = [{ name: 'v1' }],
) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `memcacheds.${GROUP}` },
    spec: {
      group: GROUP,
      names: { kind: 'Memcached', plural: 'memcacheds' },
      scope: 'Namespaced',
      versions: versions.map((v) => ({
        name: v.name,
        served: v.served ?? true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties } } } },
      })),
    },
  };
}

function csv(name: string, examples: unknown[] | string) {
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: {
      name,
      annotations: { 'alm-examples': typeof examples === 'string' ? examples : JSON.stringify(examples) },
    },
  };
}

const memcached = (spec: Record<string, unknown>, name = 'sample', version = 'v1') => ({
  apiVersion: `${GROUP}/${version}`,
  kind: 'Memcached',
  metadata: { name },
  spec,
});

const withRules = (schema: CrdSchema, ...rules: ValidationRule[]): CrdSchema => ({
  ...schema,
  'x-kubernetes-validations': rules,
});
const SIZE = withRules({ type: 'integer' }, { rule: 'self >= 1', message: 'size must be positive' });

const bundle = (
  name: string,
  spec: Record<string, unknown>,
  properties: Record<string, CrdSchema> = { size: SIZE },
) => [csv(name, [memcached(spec)]), crd(properties)];

const about = { package: 'memcached', bundle: 'memcached.v0.2.0' };
const rules = (findings: readonly Finding[]) => findings.map((f) => f.rule);

function edge(
  from: Record<string, unknown>[] | undefined,
  to: Record<string, unknown>[] | undefined,
): CatalogEdge {
  return {
    package: 'memcached',
    channels: ['stable'],
    kinds: ['replaces'],
    from: { name: 'memcached.v0.1.0', objects: () => from },
    to: { name: 'memcached.v0.2.0', objects: () => to },
  };
}

describe('cel/example-refused', () => {
  it('is an error naming the bundle, example, CRD and the message the API server prints', () => {
    const findings = celFindingsOfBundle(bundle('memcached.v0.2.0', { size: 0 }), about);
    expect(findings).toEqual([
      {
        rule: 'cel/example-refused',
        severity: 'error',
        package: 'memcached',
        subject: `memcacheds.${GROUP} spec.size`,
        message: `bundle memcached.v0.2.0: example Memcached sample is refused by CRD memcacheds.${GROUP}: spec.size: Invalid value: 0: size must be positive`,
      },
    ]);
  });

  it('is not found when the example keeps the rule', () => {
    expect(celFindingsOfBundle(bundle('memcached.v0.2.0', { size: 3 }), about)).toEqual([]);
  });

  it('names the schema error when the example breaks the schema, as the API server runs no rule then', () => {
    const server = { type: 'object', required: ['host'], properties: { host: { type: 'string' } } } as const;
    const findings = celFindingsOfBundle(
      bundle('memcached.v0.2.0', { size: 0, server: {} }, { size: SIZE, server }),
      about,
    );
    expect(findings.map((f) => f.message)).toEqual([
      `bundle memcached.v0.2.0: example Memcached sample is refused by CRD memcacheds.${GROUP} before its rules run: spec.server.host: Required value`,
    ]);
  });

  it('says when the alm-examples annotation cannot be read, naming the CSV', () => {
    const findings = celFindingsOfBundle([csv('memcached.v0.2.0', '[{'), crd({ size: SIZE })], about);
    expect(rules(findings)).toEqual(['cel/examples-malformed']);
    expect(findings[0]?.message).toContain(
      'CSV memcached.v0.2.0 has an alm-examples annotation that cannot be read',
    );
  });
});

describe('cel/rule-invalid', () => {
  it('is an error naming the CRD and the rule that does not compile', () => {
    const broken = withRules({ type: 'integer' }, { rule: 'self >= ' });
    const findings = celFindingsOfBundle(bundle('memcached.v0.2.0', { size: 3 }, { size: broken }), about);
    expect(rules(findings)).toEqual(['cel/rule-invalid']);
    expect(findings[0]?.message).toMatch(
      /CRD memcacheds\.cache\.example\.com v1 rule "self >=" is invalid: does not parse/,
    );
  });

  it('covers references to undeclared names and bad constant patterns', () => {
    const wrong = withRules({ type: 'string' }, { rule: 'size > 1' }, { rule: "self.matches('(')" });
    const findings = celFindingsOfBundle(bundle('memcached.v0.2.0', {}, { name: wrong }), about);
    expect(findings.map((f) => f.message.replace(/.* is invalid: /, ''))).toEqual([
      'undeclared reference to size',
      expect.stringMatching(/^invalid regular expression "\("/),
    ]);
  });

  it('covers fields the schema does not declare, as the API server type-checks them', () => {
    const server = withRules(
      { type: 'object', properties: { host: { type: 'string' } } },
      { rule: "self.hots == 'a'" },
    );
    const findings = celFindingsOfBundle(bundle('memcached.v0.2.0', {}, { server }), about);
    expect(findings.map((f) => f.message.replace(/.* is invalid: /, ''))).toEqual(["undefined field 'hots'"]);
  });

  it('covers metadata fields other than name and generateName on the root', () => {
    const definition = crd({});
    const version = definition.spec.versions[0];
    if (version === undefined) throw new Error('the CRD has a version');
    const rule = "!has(self.metadata.labels) && self.metadata.name != ''";
    const openAPIV3Schema = withRules(version.schema.openAPIV3Schema, { rule });
    const root = {
      ...definition,
      spec: { ...definition.spec, versions: [{ ...version, schema: { openAPIV3Schema } }] },
    };
    const objects = [csv('memcached.v0.2.0', [memcached({})]), root];
    expect(celFindingsOfBundle(objects, about).map((f) => f.message.replace(/.* is invalid: /, ''))).toEqual([
      "undefined field 'labels'",
    ]);
  });

  it('is not found for rules that compile', () => {
    expect(rules(celFindingsOfBundle(bundle('memcached.v0.2.0', {}), about))).toEqual([]);
  });
});

describe('cel/not-evaluated', () => {
  it('names the function this evaluator does not have, rather than passing the rule', () => {
    const url = withRules({ type: 'string' }, { rule: "isURL(self) && url(self).getScheme() == 'https'" });
    const findings = celFindingsOfBundle(
      bundle('memcached.v0.2.0', { endpoint: 'http://x' }, { endpoint: url }),
      about,
    );
    expect(findings).toEqual([
      expect.objectContaining({
        rule: 'cel/not-evaluated',
        severity: 'info',
        message: `bundle memcached.v0.2.0: CRD memcacheds.${GROUP} v1 rule "isURL(self) && url(self).getScheme() == 'https'" not evaluated: uses getScheme, isURL, url`,
      }),
    ]);
  });

  it('names a qualified function as it is written', () => {
    const label = withRules({ type: 'string' }, { rule: '!format.dns1123Label().validate(self).hasValue()' });
    const findings = celFindingsOfBundle(bundle('memcached.v0.2.0', { name: 'a' }, { name: label }), about);
    expect(findings.map((f) => f.message.replace(/.* not evaluated: /, ''))).toEqual([
      'uses format.dns1123Label, hasValue, validate',
    ]);
  });

  it('is not found when every rule runs', () => {
    expect(celFindingsOfBundle(bundle('memcached.v0.2.0', { size: 2 }), about)).toEqual([]);
  });
});

describe('limits', () => {
  const limited = (
    limits: Partial<CelLimits>,
    spec: Record<string, unknown>,
    properties: Record<string, CrdSchema>,
  ) =>
    celFindingsOfBundle(bundle('memcached.v0.2.0', spec, properties), {
      ...about,
      limits: { ...DEFAULT_CEL_LIMITS, ...limits },
    }).map((f) => `${f.rule} ${f.message}`);

  it('refuse a long expression, naming the CRD and rule', () => {
    const long = withRules({ type: 'integer' }, { rule: `self > 0${' && self > 0'.repeat(10)}` });
    expect(limited({ maxExpressionLength: 50 }, { size: 1 }, { size: long })).toEqual([
      `cel/not-evaluated bundle memcached.v0.2.0: CRD memcacheds.${GROUP} v1 rule "${long['x-kubernetes-validations']?.[0]?.rule}" not evaluated: expression of 128 characters exceeds the limit of 50`,
    ]);
  });

  it('refuse nested comprehensions over a large list by their estimated cost', () => {
    const pairs = withRules(
      { type: 'array', items: { type: 'integer' } },
      { rule: 'self.all(x, self.all(y, self.all(z, x + y + z >= 0)))' },
    );
    const [finding] = limited({}, { items: Array.from({ length: 400 }, (_, i) => i) }, { items: pairs });
    expect(finding).toMatch(
      /^cel\/not-evaluated .* not evaluated: estimated cost \d\.\de\+9 exceeds the limit of 10000000$/,
    );
  });

  it('refuse a CRD version with too many rules', () => {
    const many = withRules(
      { type: 'integer' },
      { rule: 'self > 0' },
      { rule: 'self < 10' },
      { rule: 'self != 5' },
    );
    expect(limited({ maxRulesPerVersion: 2 }, { size: 0 }, { size: many })).toEqual([
      `cel/not-evaluated bundle memcached.v0.2.0: CRD memcacheds.${GROUP} v1 not evaluated: 3 rules exceed the limit of 2`,
    ]);
  });

  it('refuse examples beyond the limit of objects', () => {
    const objects = [
      csv('memcached.v0.2.0', [memcached({ size: 1 }, 'a'), memcached({ size: 0 }, 'b')]),
      crd({ size: SIZE }),
    ];
    const findings = celFindingsOfBundle(objects, {
      ...about,
      limits: { ...DEFAULT_CEL_LIMITS, maxObjects: 1 },
    });
    expect(findings.map((f) => f.message)).toEqual([
      'bundle memcached.v0.2.0: 2 examples exceed the limit of 1; the rest are not evaluated',
    ]);
  });

  it('stop evaluating once the time budget is spent', () => {
    expect(limited({ timeBudgetMs: -1 }, { size: 0 }, { size: SIZE })).toEqual([
      `cel/not-evaluated bundle memcached.v0.2.0: CRD memcacheds.${GROUP} v1 rule "self >= 1" not evaluated: the time budget of -1 ms is spent`,
    ]);
  });
});

describe('cel/previous-example-refused', () => {
  const previous = bundle('memcached.v0.1.0', { size: 0 }, { size: { type: 'integer' } });

  it('warns when the new CRD refuses an object like the previous example', () => {
    const findings = celFindingsOfEdge(edge(previous, bundle('memcached.v0.2.0', { size: 1 })));
    expect(findings).toEqual([
      {
        rule: 'cel/previous-example-refused',
        severity: 'warning',
        package: 'memcached',
        edge: { from: 'memcached.v0.1.0', to: 'memcached.v0.2.0' },
        subject: `memcacheds.${GROUP} spec.size`,
        message: `upgrade memcached.v0.1.0 -> memcached.v0.2.0: an object like memcached.v0.1.0's example Memcached sample is refused by CRD memcacheds.${GROUP} of memcached.v0.2.0: spec.size: Invalid value: 0: size must be positive`,
      },
    ]);
  });

  it('is not found when the previous example still passes', () => {
    const fine = bundle('memcached.v0.1.0', { size: 2 }, { size: { type: 'integer' } });
    expect(celFindingsOfEdge(edge(fine, bundle('memcached.v0.2.0', { size: 1 })))).toEqual([]);
  });

  it('is not found when the new CRD no longer serves the previous version', () => {
    const next = [
      csv('memcached.v0.2.0', [memcached({ size: 1 }, 'sample', 'v2')]),
      crd({ size: SIZE }, [{ name: 'v1', served: false }, { name: 'v2' }]),
    ];
    expect(celFindingsOfEdge(edge(previous, next))).toEqual([]);
  });

  it('says a bundle without manifests is not checked', () => {
    expect(celFindingsOfEdge(edge(undefined, bundle('memcached.v0.2.0', { size: 1 })))).toEqual([
      expect.objectContaining({
        rule: 'cel/not-evaluated',
        severity: 'info',
        message:
          'upgrade memcached.v0.1.0 -> memcached.v0.2.0: CEL rules not checked: bundle memcached.v0.1.0 carries no manifests',
      }),
    ]);
  });
});

describe('cel/transition-refused', () => {
  const REPLICAS = withRules(
    { type: 'integer' },
    { rule: 'self >= oldSelf', messageExpression: "'replicas cannot go down from ' + string(oldSelf)" },
  );

  it('warns when updating the previous example to the new one breaks a rule with oldSelf', () => {
    const findings = celFindingsOfEdge(
      edge(
        bundle('memcached.v0.1.0', { replicas: 3 }, { replicas: REPLICAS }),
        bundle('memcached.v0.2.0', { replicas: 2 }, { replicas: REPLICAS }),
      ),
    );
    expect(findings.map((f) => `${f.rule} ${f.severity} ${f.message}`)).toEqual([
      `cel/transition-refused warning upgrade memcached.v0.1.0 -> memcached.v0.2.0: updating memcached.v0.1.0's example Memcached sample to memcached.v0.2.0's is refused by CRD memcacheds.${GROUP}: spec.replicas: Invalid value: 2: replicas cannot go down from 3`,
    ]);
  });

  it('is not found for an update the rule allows, or examples of different names', () => {
    const grown = bundle('memcached.v0.2.0', { replicas: 4 }, { replicas: REPLICAS });
    expect(
      celFindingsOfEdge(edge(bundle('memcached.v0.1.0', { replicas: 3 }, { replicas: REPLICAS }), grown)),
    ).toEqual([]);
    const other = [
      csv('memcached.v0.2.0', [memcached({ replicas: 2 }, 'other')]),
      crd({ replicas: REPLICAS }),
    ];
    expect(
      celFindingsOfEdge(edge(bundle('memcached.v0.1.0', { replicas: 3 }, { replicas: REPLICAS }), other)),
    ).toEqual([]);
  });
});

describe('values typed by the schema, as Kubernetes binds them', () => {
  const refusals = (schema: CrdSchema, value: unknown, old?: unknown) =>
    evaluateRules(
      { type: 'object', properties: { spec: { type: 'object', properties: { f: schema } } } },
      { spec: { f: value } },
      old === undefined ? undefined : { spec: { f: old } },
      old === undefined ? 'create' : 'update',
      new EvaluationBudget(DEFAULT_CEL_LIMITS),
    ).map((o) => ('message' in o ? o.message : `${o.kind}: ${o.reason}`));

  it('integer as int, number as double even when whole', () => {
    expect(refusals(withRules({ type: 'integer' }, { rule: 'self / 2 == 1' }), 3)).toEqual([]);
    expect(refusals(withRules({ type: 'number' }, { rule: 'self / 2.0 == 1.5' }), 3)).toEqual([]);
    expect(refusals(withRules({ type: 'number' }, { rule: 'self / 2 == 1' }), 3)).toHaveLength(1);
  });

  it('int-or-string by what it holds, date-time as a timestamp', () => {
    const ios = withRules(
      { 'x-kubernetes-int-or-string': true },
      { rule: "type(self) == string ? self.endsWith('%') : self > 0" },
    );
    expect(refusals(ios, '50%')).toEqual([]);
    expect(refusals(ios, 0)).toHaveLength(1);
    const when = withRules(
      { type: 'string', format: 'date-time' },
      { rule: "self < timestamp('2030-01-01T00:00:00Z')" },
    );
    expect(refusals(when, '2029-12-31T23:59:59Z')).toEqual([]);
    // Preserved unknown fields are kept but not typed: rules cannot read them.
    const open = withRules(
      { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      { rule: 'self.n % 2 == 0' },
    );
    expect(refusals(open, { n: 4 })).toEqual(["invalid: undefined field 'n'"]);
  });

  it('lists, regex and strings libraries', () => {
    const list = (rule: string) => withRules({ type: 'array', items: { type: 'integer' } }, { rule });
    expect(
      refusals(list('self.isSorted() && self.sum() == 6 && self.min() == 1 && self.max() == 3'), [1, 2, 3]),
    ).toEqual([]);
    expect(refusals(list('self.indexOf(2) == 1 && self.lastIndexOf(2) == 2'), [1, 2, 2])).toEqual([]);
    const text = (rule: string) => withRules({ type: 'string' }, { rule });
    expect(
      refusals(text("self.find('[0-9]+') == '12' && self.findAll('[a-z]', 2) == ['a', 'b']"), 'ab12c'),
    ).toEqual([]);
    expect(refusals(text("self.split('-').join('.') == 'a.b' && self.upperAscii() == 'A-B'"), 'a-b')).toEqual(
      [],
    );
  });

  it('rules with oldSelf only on updates; unchanged values not re-validated (ratcheting)', () => {
    const rule = withRules(
      { type: 'string' },
      { rule: 'self == oldSelf', message: 'immutable' },
      { rule: "self != 'bad'" },
    );
    expect(refusals(rule, 'a')).toEqual([]);
    expect(refusals(rule, 'b', 'a')).toEqual(['spec.f: Invalid value: "b": immutable']);
    expect(refusals(rule, 'bad', 'bad')).toEqual([]);
  });
});
