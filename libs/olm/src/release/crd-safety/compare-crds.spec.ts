import { describe, expect, it } from 'vitest';
import { type CrdFinding, compareCrds } from './compare-crds.js';
import { CrdSchemaError } from './schema.js';
import { fieldOf, type RawCrd, type RawSchema, specOf, widgets, widgetVersion } from './spec-fixtures.js';

const properties = (schema: RawSchema) => schema.properties as Record<string, RawSchema>;

/** The findings of upgrading the widget CRD to its copy changed by `edit`. */
function upgrade(edit: (crd: RawCrd) => void, previous: RawCrd = widgets()): CrdFinding[] {
  return compareCrds(previous, widgets(edit));
}

const summary = (findings: readonly CrdFinding[]) =>
  findings.map((f) => `${f.severity} ${f.rule}: ${f.message}`);

/** Two served versions, v1alpha1 stored. */
function twoVersions(edit: (crd: RawCrd) => void = () => {}): RawCrd {
  return widgets((crd) => {
    crd.spec.versions = [widgetVersion('v1alpha1', true), widgetVersion('v1', false)];
    edit(crd);
  });
}

describe('compareCrds: the CRD as a whole', () => {
  it('finds nothing between equal CRDs', () => {
    expect(compareCrds(widgets(), widgets())).toEqual([]);
  });

  it('refuses a changed scope', () => {
    expect(summary(upgrade((c) => (c.spec.scope = 'Cluster')))).toEqual([
      'error crd/scope-changed: widgets.example.com: scope changed Namespaced → Cluster',
    ]);
  });

  it('refuses removing the previous storage version', () => {
    const findings = compareCrds(twoVersions(), widgets());
    expect(summary(findings)).toEqual([
      'error crd/stored-version-removed: widgets.example.com v1alpha1: stored version removed: objects stored in it could no longer be read',
    ]);
    expect(findings[0]?.olmCheck).toBe('storedVersionRemoval');
  });

  it('refuses removing a version listed in status.storedVersions', () => {
    const previous = twoVersions((c) => {
      c.spec.versions = [widgetVersion('v1alpha1', false), widgetVersion('v1', true)];
      c.status = { storedVersions: ['v1alpha1', 'v1'] };
    });
    expect(compareCrds(previous, widgets()).map((f) => `${f.rule} ${f.version}`)).toEqual([
      'crd/stored-version-removed v1alpha1',
    ]);
  });

  it('warns, and lets through, a served version removed that was never stored', () => {
    const previous = twoVersions((c) => {
      c.spec.versions = [widgetVersion('v1alpha1', false), widgetVersion('v1', true)];
    });
    expect(summary(compareCrds(previous, widgets()))).toEqual([
      'warning crd/served-version-removed: widgets.example.com v1alpha1: served version removed: its clients break',
    ]);
    const unserved = twoVersions((c) => {
      c.spec.versions = [{ ...widgetVersion('v1alpha1', false), served: false }, widgetVersion('v1', true)];
    });
    expect(summary(compareCrds(previous, unserved))).toEqual([
      'warning crd/served-version-removed: widgets.example.com v1alpha1: served version no longer served: its clients break',
    ]);
    expect(compareCrds(previous, previous)).toEqual([]);
  });

  it('says when the conversion strategy changes', () => {
    const webhook = (c: RawCrd) => {
      c.spec.conversion = { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'] } };
    };
    expect(summary(compareCrds(twoVersions(webhook), twoVersions()))).toEqual([
      'warning crd/conversion-changed: widgets.example.com: conversion strategy changed Webhook → None: objects are served in every version unconverted',
    ]);
    expect(summary(compareCrds(twoVersions(), twoVersions(webhook)))).toEqual([
      'info crd/conversion-changed: widgets.example.com: conversion strategy changed None → Webhook',
    ]);
    expect(compareCrds(twoVersions(webhook), twoVersions(webhook))).toEqual([]);
  });
});

describe('compareCrds: fields of a version both CRDs have', () => {
  it('refuses a removed field, once at the topmost removed field', () => {
    const findings = upgrade((c) => {
      delete properties(specOf(c)).tags;
    });
    expect(summary(findings)).toEqual([
      'error crd/field-removed: widgets.example.com v1: field spec.tags removed with 1 field beneath it',
    ]);
    expect(findings[0]).toMatchObject({ version: 'v1', path: 'spec.tags', olmCheck: 'existingFieldRemoval' });
    expect(upgrade((c) => (properties(specOf(c)).color = { type: 'string' }))).toEqual([]);
  });

  it('refuses a removed field even where x-kubernetes-preserve-unknown-fields keeps its data, saying so', () => {
    expect(summary(upgrade((c) => delete fieldOf(c, 'extra').properties))).toEqual([
      'error crd/field-removed: widgets.example.com v1: field spec.extra.note removed (its data is kept under x-kubernetes-preserve-unknown-fields, yet OLM v1 refuses it)',
    ]);
  });

  it('refuses a changed type, naming int-or-string', () => {
    expect(summary(upgrade((c) => (fieldOf(c, 'size').type = 'string')))).toEqual([
      'error crd/type-changed: widgets.example.com v1: field spec.size type changed integer → string',
    ]);
    const findings = upgrade((c) => {
      properties(specOf(c)).size = {
        'x-kubernetes-int-or-string': true,
        anyOf: [{ type: 'integer' }, { type: 'string' }],
      };
    });
    expect(findings.map((f) => f.rule)).toContain('crd/type-changed');
    expect(findings.find((f) => f.rule === 'crd/type-changed')?.message).toContain(
      'integer → int-or-string (no type)',
    );
    expect(upgrade((c) => (fieldOf(c, 'size').description = 'How many widgets.'))).toEqual([]);
  });

  it('refuses enum values removed and a new enum constraint, allows values added', () => {
    expect(summary(upgrade((c) => (fieldOf(c, 'mode').enum = ['fast'])))).toEqual([
      'error crd/enum-narrowed: widgets.example.com v1: field spec.mode enum values removed: "safe"',
    ]);
    expect(summary(upgrade((c) => (fieldOf(c, 'name').enum = ['b', 'a'])))).toEqual([
      'error crd/enum-narrowed: widgets.example.com v1: field spec.name enum constraint added: "a", "b"',
    ]);
    expect(upgrade((c) => (fieldOf(c, 'mode').enum = ['safe', 'fast', 'slow']))).toEqual([]);
  });

  it('refuses a field newly required on an existing object, not on a new one', () => {
    expect(summary(upgrade((c) => (specOf(c).required = ['size', 'name'])))).toEqual([
      'error crd/required-added: widgets.example.com v1: field spec requires new fields: name',
    ]);
    const newObject = { type: 'object', required: ['a'], properties: { a: { type: 'string' } } };
    expect(upgrade((c) => (properties(specOf(c)).sub = newObject))).toEqual([]);
  });

  it('refuses a default added, removed or changed; the same default in another key order is no change', () => {
    expect(summary(upgrade((c) => (fieldOf(c, 'mode').default = 'fast')))).toEqual([
      'error crd/default-added: widgets.example.com v1: field spec.mode default "fast" added',
    ]);
    expect(summary(upgrade((c) => delete fieldOf(c, 'size').default))).toEqual([
      'error crd/default-removed: widgets.example.com v1: field spec.size default 3 removed',
    ]);
    expect(summary(upgrade((c) => (fieldOf(c, 'size').default = 4)))).toEqual([
      'error crd/default-changed: widgets.example.com v1: field spec.size default changed 3 → 4',
    ]);
    const before = widgets((c) => (fieldOf(c, 'labels').default = { a: '1', b: '2' }));
    expect(upgrade((c) => (fieldOf(c, 'labels').default = { b: '2', a: '1' }), before)).toEqual([]);
  });

  it('refuses tightened bounds and lets loosened ones through', () => {
    const findings = upgrade((c) => {
      fieldOf(c, 'size').maximum = 5;
      fieldOf(c, 'size').minimum = 2;
      fieldOf(c, 'name').minLength = 1;
      fieldOf(c, 'tags').maxItems = 4;
      fieldOf(c, 'labels').minProperties = 1;
    });
    expect(summary(findings)).toEqual([
      'error crd/bounds-tightened: widgets.example.com v1: field spec.labels minProperties 1 added',
      'error crd/bounds-tightened: widgets.example.com v1: field spec.name minLength 1 added',
      'error crd/bounds-tightened: widgets.example.com v1: field spec.size maximum decreased 10 → 5',
      'error crd/bounds-tightened: widgets.example.com v1: field spec.size minimum increased 1 → 2',
      'error crd/bounds-tightened: widgets.example.com v1: field spec.tags maxItems decreased 5 → 4',
    ]);
    expect(
      upgrade((c) => {
        delete fieldOf(c, 'size').maximum;
        fieldOf(c, 'size').minimum = 0;
        fieldOf(c, 'name').maxLength = 253;
      }),
    ).toEqual([]);
  });

  it('refuses exclusiveMaximum and multipleOf tightened as bounds, and any other change of them as unhandled', () => {
    const tightened = upgrade((c) => {
      fieldOf(c, 'size').exclusiveMaximum = true;
      fieldOf(c, 'size').multipleOf = 2;
    });
    expect(tightened.map((f) => `${f.rule} ${f.olmCheck}: ${f.message}`)).toEqual([
      'crd/bounds-tightened unhandled: widgets.example.com v1: field spec.size exclusiveMaximum added',
      'crd/bounds-tightened unhandled: widgets.example.com v1: field spec.size multipleOf 2 added',
    ]);
    const before = widgets((c) => (fieldOf(c, 'size').multipleOf = 4));
    expect(upgrade((c) => (fieldOf(c, 'size').multipleOf = 2), before).map((f) => f.rule)).toEqual([
      'crd/unhandled-change',
    ]);
    expect(upgrade((c) => (fieldOf(c, 'size').multipleOf = 8), before).map((f) => f.rule)).toEqual([
      'crd/bounds-tightened',
    ]);
  });

  it('refuses a pattern added, changed or removed', () => {
    expect(summary(upgrade((c) => (fieldOf(c, 'name').pattern = '^[a-z0-9]+$')))).toEqual([
      'error crd/pattern-changed: widgets.example.com v1: field spec.name pattern changed "^[a-z]+$" → "^[a-z0-9]+$"',
    ]);
    expect(summary(upgrade((c) => delete fieldOf(c, 'name').pattern))).toEqual([
      'error crd/pattern-changed: widgets.example.com v1: field spec.name pattern "^[a-z]+$" removed',
    ]);
    expect(summary(upgrade((c) => (fieldOf(c, 'mode').pattern = '^f')))).toEqual([
      'error crd/pattern-changed: widgets.example.com v1: field spec.mode pattern "^f" added',
    ]);
    expect(upgrade((c) => (fieldOf(c, 'name').description = 'Lower case.'))).toEqual([]);
  });

  it('refuses nullable added or removed', () => {
    expect(summary(upgrade((c) => (fieldOf(c, 'mode').nullable = true)))).toEqual([
      'error crd/nullable-changed: widgets.example.com v1: field spec.mode nullable added',
    ]);
    const before = widgets((c) => (fieldOf(c, 'mode').nullable = true));
    expect(upgrade((c) => (fieldOf(c, 'mode').nullable = false), before).map((f) => f.rule)).toEqual([
      'crd/nullable-changed',
    ]);
    expect(upgrade((c) => (fieldOf(c, 'mode').nullable = false))).toEqual([]);
  });

  it('refuses oneOf branches removed or added, not a branch description changed', () => {
    const removed = upgrade((c) => (fieldOf(c, 'shape').oneOf = [{ required: ['circle'] }]));
    expect(summary(removed)).toEqual([
      'error crd/one-of-changed: widgets.example.com v1: field spec.shape 1 oneOf branch removed or changed',
      'error crd/field-removed: widgets.example.com v1: field spec.shape.oneOf[1] removed',
    ]);
    expect(
      upgrade(
        (c) =>
          (fieldOf(c, 'shape').oneOf = [
            { required: ['circle'], description: 'Round.' },
            { required: ['square'] },
          ]),
      ),
    ).toEqual([]);
  });

  it('refuses any other change of a node as unhandled, naming the keywords', () => {
    const findings = upgrade((c) => {
      fieldOf(c, 'size').format = 'int64';
      specOf(c)['x-kubernetes-validations'] = [{ rule: 'self.size < 8' }];
    });
    expect(summary(findings)).toEqual([
      'error crd/unhandled-change: widgets.example.com v1: field spec x-kubernetes-validations changed, which OLM v1 does not classify and so refuses',
      'error crd/unhandled-change: widgets.example.com v1: field spec.size format changed, which OLM v1 does not classify and so refuses',
    ]);
  });

  it('compares a map value schema apart and within its map, as crdify does', () => {
    const findings = upgrade((c) => (fieldOf(c, 'labels').additionalProperties = { type: 'integer' }));
    expect(findings.map((f) => `${f.rule} ${f.path}`)).toEqual([
      'crd/unhandled-change spec.labels',
      'crd/type-changed spec.labels.additionalProperties',
    ]);
  });

  it('ignores keywords the API server does not know, and reads null as absent', () => {
    expect(
      upgrade((c) => {
        fieldOf(c, 'size')['x-opkit-note'] = 'ignored';
        fieldOf(c, 'mode').pattern = null;
      }),
    ).toEqual([]);
  });

  it('reads property names such as __proto__ as fields', () => {
    const withProto = (c: RawCrd) => {
      specOf(c).properties = JSON.parse('{"__proto__": {"type": "string"}}') as Record<string, RawSchema>;
    };
    expect(
      compareCrds(
        widgets(withProto),
        widgets((c) => (specOf(c).properties = {})),
      ).map((f) => f.path),
    ).toEqual(['spec.__proto__']);
  });
});

describe('compareCrds: served versions of the next CRD', () => {
  const served = (edit: (crd: RawCrd) => void) =>
    twoVersions((c) => {
      c.spec.versions = [widgetVersion('v1alpha1', false), widgetVersion('v1', true)];
      edit(c);
    });

  it('refuses served versions that differ without a conversion webhook, older to newer', () => {
    const findings = compareCrds(
      widgets(),
      served((c) => (fieldOf(c, 'size', 'v1alpha1').type = 'string')),
    );
    expect(summary(findings)).toEqual([
      'error crd/type-changed: widgets.example.com v1alpha1 → v1: field spec.size type changed string → integer',
    ]);
    expect(findings[0]?.servedVersions).toEqual(['v1alpha1', 'v1']);
  });

  it('lets served versions differ when the next CRD converts by webhook', () => {
    const next = served((c) => {
      fieldOf(c, 'size', 'v1alpha1').type = 'string';
      c.spec.conversion = { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'] } };
    });
    expect(compareCrds(widgets(), next).filter((f) => f.severity === 'error')).toEqual([]);
  });

  it('lets through differences the previous CRD already had between the same served versions', () => {
    const differing = (c: RawCrd) => (fieldOf(c, 'size', 'v1alpha1').type = 'string');
    expect(compareCrds(served(differing), served(differing))).toEqual([]);
  });

  it('refuses a field the newer served version lacks, unless it had only a description', () => {
    const next = served((c) => {
      delete properties(specOf(c, 'v1alpha1')).mode;
      properties(specOf(c, 'v1alpha1')).note = { description: 'Only in v1alpha1.' };
      properties(specOf(c, 'v1alpha1')).legacy = { type: 'string' };
    });
    const findings = compareCrds(widgets(), next);
    expect(summary(findings)).toEqual([
      'error crd/field-removed: widgets.example.com v1alpha1 → v1: field spec.legacy removed',
    ]);
  });
});

describe('compareCrds: limits and malformed CRDs', () => {
  function deep(levels: number): RawSchema {
    let schema: RawSchema = { type: 'string' };
    for (let i = 0; i < levels; i++) schema = { type: 'object', properties: { a: schema } };
    return schema;
  }

  it('refuses a schema nested deeper than the limit, naming the CRD, version and path', () => {
    const next = widgets((c) => (properties(specOf(c)).deep = deep(200)));
    expect(() => compareCrds(widgets(), next)).toThrow(CrdSchemaError);
    expect(() => compareCrds(widgets(), next)).toThrow(
      /^widgets\.example\.com v1: schema nests deeper than 100 levels at spec\.deep(\.a)+$/,
    );
    expect(
      compareCrds(
        widgets(),
        widgets((c) => (properties(specOf(c)).deep = deep(50))),
      ),
    ).toEqual([]);
  });

  it('counts default values against the limits, as they are as untrusted as the schema', () => {
    let value: unknown = 1;
    for (let i = 0; i < 5000; i++) value = [value];
    const next = widgets((c) => (fieldOf(c, 'tags').default = value));
    expect(() => compareCrds(widgets(), next)).toThrow(
      'widgets.example.com v1: value nests deeper than 100 levels at spec.tags.default',
    );
  });

  it('refuses a schema with more nodes than the limit', () => {
    expect(() => compareCrds(widgets(), widgets(), { limits: { maxDepth: 100, maxNodes: 10 } })).toThrow(
      /^widgets\.example\.com v1: schema has more than 10 nodes at /,
    );
  });

  it('refuses a keyword of the wrong type and a CRD without a name', () => {
    expect(() =>
      compareCrds(
        widgets(),
        widgets((c) => (fieldOf(c, 'size').maximum = '5')),
      ),
    ).toThrow('widgets.example.com v1: maximum is not a number at spec.size');
    expect(() => compareCrds({ kind: 'CustomResourceDefinition' }, widgets())).toThrow(
      'the previous CRD has no metadata.name',
    );
  });
});
