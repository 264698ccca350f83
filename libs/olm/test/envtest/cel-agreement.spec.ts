import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeApiError, KubeRest } from '@opkit/test-cluster';
import { startTestEnvironment, type TestEnvironment } from '@opkit/test-cluster/envtest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CrdSchema,
  celFindingsOfBundle,
  DEFAULT_CEL_LIMITS,
  EvaluationBudget,
  evaluateRules,
  type RuleOutcome,
} from '../../src/release/cel/index.js';
import { CEL_CASES } from './cel-cases.js';

// Each case is one field of one CRD; every object sets one field, so each refusal belongs to one case.
const GROUP = 'cel.opkit.test';
const PATH = `/apis/${GROUP}/v1/namespaces/default/probes`;
const schema: CrdSchema = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: { type: 'object', properties: Object.fromEntries(CEL_CASES.map((c) => [c.name, c.schema])) },
  },
};
const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `probes.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'probes', singular: 'probe', kind: 'Probe', listKind: 'ProbeList' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }],
  },
};

interface Verdict {
  readonly refused: boolean;
  /** The field errors: the API server's message, or the evaluator's joined. */
  readonly text: string;
}

let env: TestEnvironment;
let rest: KubeRest;
let dir: string;
let serial = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cel-agreement-'));
  mkdirSync(join(dir, 'crds'));
  writeFileSync(join(dir, 'crds', 'probes.json'), JSON.stringify(crd));
  env = await startTestEnvironment({ crdDirectoryPaths: [join(dir, 'crds')], webhookConfigPaths: [] });
  rest = new KubeRest(env.kubeConfig);
}, 120_000);

afterAll(async () => {
  rest?.close();
  await env?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const probe = (field: string, value: unknown) => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'Probe',
  metadata: { name: `probe-${++serial}` },
  spec: { [field]: value },
});

async function apiVerdict(call: () => Promise<unknown>): Promise<Verdict> {
  try {
    await call();
    return { refused: false, text: '' };
  } catch (error) {
    if (error instanceof KubeApiError && error.status === 422) return { refused: true, text: error.message };
    throw error;
  }
}

function evaluatorVerdict(object: Record<string, unknown>, old?: Record<string, unknown>): Verdict {
  const outcomes = evaluateRules(
    schema,
    object,
    old,
    old === undefined ? 'create' : 'update',
    new EvaluationBudget(DEFAULT_CEL_LIMITS),
  );
  const unexpected = outcomes.filter((o) => o.kind !== 'refused' && o.kind !== 'schema');
  expect(unexpected, 'every rule of the agreement CRD is evaluated').toEqual([]);
  const refused = outcomes.filter(
    (o): o is RuleOutcome & { kind: 'refused' | 'schema' } => o.kind === 'refused' || o.kind === 'schema',
  );
  return { refused: refused.length > 0, text: refused.map((o) => o.message).join('\n') };
}

/** Agreement on the verdict, and the API server's message has each field error the evaluator words. */
function expectAgreement(api: Verdict, ours: Verdict, what: string): void {
  expect({ what, refused: ours.refused }).toEqual({ what, refused: api.refused });
  for (const line of ours.text.split('\n').filter((l) => l !== '')) {
    expect(api.text, what).toContain(line);
  }
}

describe('CEL rules evaluated by opkit agree with kube-apiserver', () => {
  for (const c of CEL_CASES) {
    it(`${c.name}: creates`, async () => {
      for (const value of c.create) {
        const object = probe(c.name, value);
        const api = await apiVerdict(() => rest.request('POST', PATH, { body: object }));
        expectAgreement(api, evaluatorVerdict(object), `${c.name} = ${JSON.stringify(value)}`);
      }
    });
    if (c.update !== undefined) {
      it(`${c.name}: updates`, async () => {
        for (const { from, to } of c.update ?? []) {
          const old = probe(c.name, from);
          const stored = await rest.request<{ metadata: { resourceVersion: string } }>('POST', PATH, {
            body: old,
          });
          const next = {
            ...old,
            metadata: { ...old.metadata, resourceVersion: stored.metadata.resourceVersion },
          };
          next.spec = { [c.name]: to };
          const api = await apiVerdict(() =>
            rest.request('PUT', `${PATH}/${old.metadata.name}`, { body: next }),
          );
          const what = `${c.name}: ${JSON.stringify(from)} -> ${JSON.stringify(to)}`;
          expectAgreement(api, evaluatorVerdict(next, old), what);
        }
      });
    }
  }
});

describe('rules the API server refuses in a CRD are invalid here', () => {
  const text: CrdSchema = { type: 'string', maxLength: 8 };
  const object: CrdSchema = {
    type: 'object',
    properties: { name: text, nested: { type: 'object', properties: { a: text } } },
  };
  const invalid: { rule: string; schema: CrdSchema }[] = [
    { rule: 'self.size() >', schema: text },
    { rule: 'selfie > 1', schema: text },
    { rule: "self.matches('[')", schema: text },
    { rule: "self.nmae == 'x'", schema: object },
    { rule: "has(self.nested.b) || self.name == 'x'", schema: object },
    { rule: 'self.n > 1', schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
  ];
  for (const [i, { rule, schema }] of invalid.entries()) {
    it(rule, async () => {
      const group = `invalid${i}.opkit.test`;
      const refused = {
        ...crd,
        metadata: { name: `probes.${group}` },
        spec: {
          ...crd.spec,
          group,
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: {
                openAPIV3Schema: {
                  type: 'object',
                  properties: { spec: { ...schema, 'x-kubernetes-validations': [{ rule }] } },
                },
              },
            },
          ],
        },
      };
      const api = await apiVerdict(() =>
        rest.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: refused }),
      );
      const ours = celFindingsOfBundle([refused], { package: 'probe', bundle: 'probe.v1' });
      expect(api.refused).toBe(true);
      expect(ours.map((f) => f.rule)).toEqual(['cel/rule-invalid']);
    });
  }
});

describe('rules on the root of the object, where self.metadata has only name and generateName', () => {
  const group = 'root.opkit.test';
  const rootSchema: CrdSchema = {
    type: 'object',
    properties: { spec: { type: 'object', properties: { prefix: { type: 'string', maxLength: 8 } } } },
    'x-kubernetes-validations': [
      { rule: 'self.metadata.name.startsWith(self.spec.prefix)', message: 'name must start with the prefix' },
      { rule: "self.metadata.name.endsWith('-1')" },
    ],
  };
  const rootCrd = {
    ...crd,
    metadata: { name: `probes.${group}` },
    spec: {
      ...crd.spec,
      group,
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: rootSchema } }],
    },
  };

  it('agree on create', async () => {
    await rest.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: rootCrd });
    const path = `/apis/${group}/v1/namespaces/default/probes`;
    for (const [name, prefix] of [
      ['ok-1', 'ok'],
      ['bad-1', 'ok'],
      ['bad-2', 'ok'],
    ] as const) {
      const object = {
        apiVersion: `${group}/v1`,
        kind: 'Probe',
        metadata: { name, labels: { a: 'b' } },
        spec: { prefix },
      };
      let api: Verdict | undefined;
      for (let attempt = 0; api === undefined; attempt++) {
        try {
          api = await apiVerdict(() => rest.request('POST', path, { body: object }));
        } catch (error) {
          // The new CRD is served a moment after it is created.
          if (!(error instanceof KubeApiError && error.status === 404) || attempt > 50) throw error;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
      const outcomes = evaluateRules(
        rootSchema,
        object,
        undefined,
        'create',
        new EvaluationBudget(DEFAULT_CEL_LIMITS),
      );
      const ours = outcomes.map((o) => ('message' in o ? o.message : `${o.kind}: ${o.reason}`));
      expect({ name, refused: ours.length > 0 }).toEqual({ name, refused: api.refused });
      for (const line of ours) expect(api.text).toContain(line.replace(/^<root>/, ''));
    }
  });
});
