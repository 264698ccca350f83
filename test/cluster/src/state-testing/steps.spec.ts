import { describe, expect, it } from 'vitest';
import type { Json } from './json-path.js';
import type { OpenApiSchema } from './openapi.js';
import { quantityMillis } from './quantity.js';
import { generateSteps } from './steps.js';

const QUANTITY: OpenApiSchema = {
  'x-kubernetes-int-or-string': true,
  anyOf: [{ type: 'integer' }, { type: 'string' }],
  pattern:
    '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$',
};

const SCHEMA: OpenApiSchema = {
  type: 'object',
  required: ['replicas'],
  properties: {
    replicas: { type: 'integer', minimum: 1, maximum: 3 },
    mode: { type: 'string', enum: ['fast', 'safe'] },
    name: { type: 'string', minLength: 1, maxLength: 8 },
    memory: QUANTITY,
    args: { type: 'array', maxItems: 2, items: { type: 'string', maxLength: 4 } },
    port: { type: 'object', properties: { number: { type: 'integer', minimum: 1, maximum: 65535 } } },
    limits: { type: 'object', additionalProperties: QUANTITY },
  },
};

type Spec = { [key: string]: Json };

/** Whether a spec is valid by SCHEMA (the subset of checks the API server would make here). */
function valid(spec: Spec): boolean {
  const r = spec.replicas;
  const okQuantity = (q: Json | undefined) =>
    q === undefined || ((typeof q === 'string' || typeof q === 'number') && quantityMillis(q) !== undefined);
  const port = spec.port as Spec | undefined;
  const args = spec.args as Json[] | undefined;
  return (
    typeof r === 'number' &&
    Number.isInteger(r) &&
    r >= 1 &&
    r <= 3 &&
    (spec.mode === undefined || spec.mode === 'fast' || spec.mode === 'safe') &&
    (spec.name === undefined ||
      (typeof spec.name === 'string' && spec.name.length >= 1 && spec.name.length <= 8)) &&
    okQuantity(spec.memory) &&
    (args === undefined || (args.length <= 2 && args.every((a) => typeof a === 'string' && a.length <= 4))) &&
    (port === undefined ||
      (typeof port === 'object' && !Array.isArray(port) && port.number === undefined) ||
      (typeof port.number === 'number' &&
        Number.isInteger(port.number) &&
        port.number >= 1 &&
        port.number <= 65535)) &&
    (spec.limits === undefined ||
      (typeof spec.limits === 'object' && Object.values(spec.limits as Spec).every(okQuantity)))
  );
}

const generate = (seed: number, count = 400) =>
  generateSteps<Spec>(
    { schema: SCHEMA, initial: { replicas: 1 }, seed, hints: { limits: { keys: ['cpu'] } } },
    count,
  );

describe('generateSteps', () => {
  it('gives the same steps for the same seed, and others for another', () => {
    expect(generate(7, 100)).toEqual(generate(7, 100));
    expect(generate(8, 100)).not.toEqual(generate(7, 100));
  });

  it('writes only valid specs as changes and respellings, and only invalid ones as invalid steps', () => {
    for (const step of generate(20261123)) {
      expect(valid(step.spec), `${step.kind} ${step.description}: ${JSON.stringify(step.spec)}`).toBe(
        step.kind !== 'invalid',
      );
    }
  });

  it('reaches the boundaries, every enum value, and adds and removes optional fields', () => {
    const steps = generate(20261123, 1000);
    const values = (field: string) =>
      new Set(steps.filter((s) => s.kind === 'change').map((s) => s.spec[field]));
    expect(values('replicas')).toEqual(new Set([1, 2, 3]));
    expect(values('mode')).toEqual(new Set(['fast', 'safe', undefined]));
    const names = [...values('name')].filter((n): n is string => typeof n === 'string');
    expect(names.some((n) => n.length === 1) && names.some((n) => n.length === 8)).toBe(true);
    const invalid = steps.filter((s) => s.kind === 'invalid').map((s) => s.description);
    expect(invalid).toEqual(
      expect.arrayContaining([
        'spec.replicas: 0 (below the minimum)',
        'spec.replicas: 4 (above the maximum)',
      ]),
    );
    expect(invalid.some((d) => d.startsWith('spec.mode: "not-in-the-enum"'))).toBe(true);
    expect(invalid.some((d) => d.startsWith('spec.args: ') && d.endsWith('(one item too many)'))).toBe(true);
  });

  it('respells a value as the same quantity, or the same object with its keys in another order', () => {
    const respells = generate(20261123, 1000).filter((s) => s.kind === 'respell');
    expect(respells.length).toBeGreaterThan(0);
    for (const step of respells) {
      const before = step.respells as Spec;
      expect(JSON.stringify(step.spec)).not.toBe(JSON.stringify(before));
      for (const [field, value] of Object.entries(step.spec)) {
        if (field === 'memory')
          expect(quantityMillis(value as string)).toBe(quantityMillis(before.memory as string));
        else if (field !== 'limits') expect(value).toEqual(before[field]);
      }
    }
  });
});
