import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { int32, quantity, schemaDefault } from './schema-types.js';

describe('schemaDefault', () => {
  it('reads the default a property’s schema declares, optional or not', () => {
    const spec = Type.Object({
      port: Type.Optional(int32({ default: 11211 })),
      memory: Type.Unsafe<string | number>({ ...quantity(), default: '64Mi' }),
    });
    expect(schemaDefault(spec.properties.port)).toBe(11211);
    expect(schemaDefault(spec.properties.memory)).toBe('64Mi');
  });

  it('refuses a schema that declares none', () => {
    expect(() => schemaDefault(int32())).toThrow('the schema declares no default');
  });
});
