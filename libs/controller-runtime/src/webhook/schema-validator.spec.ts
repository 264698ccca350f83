import { Ajv } from 'ajv';
import { describe, expect, it, vi } from 'vitest';
import { schemaValidator } from './schema-validator.js';

interface Shard {
  spec: { size: number; replicas?: number };
}

const schema = {
  type: 'object',
  required: ['spec'],
  properties: {
    spec: {
      type: 'object',
      required: ['size'],
      properties: { size: { type: 'integer', minimum: 1 }, replicas: { type: 'integer', format: 'int32' } },
    },
  },
};

describe('schemaValidator', () => {
  it('names the field and the reason for each schema violation', () => {
    const validate = schemaValidator<Shard>(schema);
    expect(validate({ spec: { size: 3 } })).toEqual([]);
    expect(validate({ spec: { size: 0, replicas: 'two' } })).toEqual([
      { field: 'spec.size', message: 'must be >= 1' },
      { field: 'spec.replicas', message: 'must be integer' },
    ]);
    expect(validate({})).toEqual([{ field: '(root)', message: "must have required property 'spec'" }]);
  });

  it('compiles its schema once, when the first object is checked, not when it is made', () => {
    const compile = vi.spyOn(Ajv.prototype, 'compile');
    try {
      const validate = schemaValidator<Shard>(schema);
      schemaValidator<Shard>({ ...schema, required: [] });
      expect(compile).not.toHaveBeenCalled();
      expect(validate({ spec: { size: 0 } })).toHaveLength(1);
      expect(validate({ spec: { size: 1 } })).toEqual([]);
      expect(compile).toHaveBeenCalledTimes(1);
    } finally {
      compile.mockRestore();
    }
  });

  it('applies the CEL restatements only to objects the schema accepts', () => {
    const validate = schemaValidator<Shard>(schema, (shard) =>
      shard.spec.size % ((shard.spec.replicas ?? 0) + 1) === 0
        ? []
        : [{ field: 'spec.size', message: 'spec.size must be a multiple of spec.replicas + 1' }],
    );
    expect(validate({ spec: { size: 4, replicas: 1 } })).toEqual([]);
    expect(validate({ spec: { size: 3, replicas: 1 } })).toEqual([
      { field: 'spec.size', message: 'spec.size must be a multiple of spec.replicas + 1' },
    ]);
    expect(validate({ spec: { size: -1, replicas: 1 } })).toEqual([
      { field: 'spec.size', message: 'must be >= 1' },
    ]);
  });
});
