import type { FieldHint } from './hints.js';
import type { Json } from './json-path.js';
import { isQuantitySchema, type OpenApiSchema } from './openapi.js';
import { quantityMillis, quantitySpellings } from './quantity.js';
import type { Random } from './random.js';

/** A value for one field and why it was chosen (`maximum`, `enum value`, …), for the step's description. */
export interface Choice {
  /** `undefined`: the field removed. */
  readonly value: Json | undefined;
  readonly why: string;
}

const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

function text(random: Random, length: number): string {
  let s = '';
  for (let i = 0; i < length; i++) s += ALPHABET[random.int(0, ALPHABET.length - 1)];
  return s;
}

function integerRange(schema: OpenApiSchema): { min: number; max: number } {
  const min =
    (schema.minimum ?? (schema.format === 'int32' ? INT32.min : 0)) + (schema.exclusiveMinimum ? 1 : 0);
  const max =
    (schema.maximum ?? (schema.format === 'int32' ? INT32.max : 1000)) - (schema.exclusiveMaximum ? 1 : 0);
  return { min, max };
}

function quantityRange(hint: FieldHint): { min: bigint; max: bigint; step: bigint } | undefined {
  if (!hint.quantity) return undefined;
  const min = quantityMillis(hint.quantity.min);
  const max = quantityMillis(hint.quantity.max);
  const step = quantityMillis(hint.quantity.step ?? '1');
  if (min === undefined || max === undefined || step === undefined || step <= 0n) {
    throw new Error(`not quantities: ${JSON.stringify(hint.quantity)}`);
  }
  return { min, max, step };
}

/** A random quantity spelling of a value. */
export function spellQuantity(random: Random, millis: bigint): Json {
  return random.pick(quantitySpellings(millis));
}

/** Valid candidates for a scalar field: its boundaries, every enum value, and a random value. */
export function validScalar(schema: OpenApiSchema, hint: FieldHint, random: Random): Choice | undefined {
  if (hint.values?.length) return { value: random.pick(hint.values) as Json, why: 'a listed value' };
  if (schema.enum?.length) return { value: random.pick(schema.enum) as Json, why: 'an enum value' };
  if (isQuantitySchema(schema)) {
    const range = quantityRange(hint) ?? { min: 0n, max: 1024n ** 3n * 1000n, step: 1000n };
    const steps = (range.max - range.min) / range.step;
    const pick = random.pick(['minimum', 'maximum', 'random'] as const);
    const millis =
      pick === 'minimum'
        ? range.min
        : pick === 'maximum'
          ? range.min + steps * range.step
          : range.min + BigInt(Math.floor(random.next() * (Number(steps) + 1))) * range.step;
    return { value: spellQuantity(random, millis), why: pick === 'random' ? 'a quantity' : `the ${pick}` };
  }
  switch (schema.type) {
    case 'integer':
    case 'number': {
      const { min, max } = integerRange(schema);
      const candidates: Choice[] = [
        { value: min, why: 'the minimum' },
        { value: max, why: 'the maximum' },
        { value: random.int(min, max), why: 'a value in range' },
      ];
      if (max > min)
        candidates.push(
          { value: min + 1, why: 'above the minimum' },
          { value: max - 1, why: 'below the maximum' },
        );
      return random.pick(candidates);
    }
    case 'boolean':
      return { value: random.chance(0.5), why: 'a boolean' };
    case 'string': {
      if (schema.pattern) {
        return schema.default !== undefined
          ? { value: schema.default as Json, why: 'the default' }
          : undefined;
      }
      const min = schema.minLength ?? 0;
      const max = Math.min(schema.maxLength ?? 64, 1024);
      const length = random.pick([min, max, random.int(min, max)]);
      return {
        value: text(random, length),
        why: length === max ? 'the longest' : length === min ? 'the shortest' : 'a string',
      };
    }
    default:
      return undefined;
  }
}

/** Values the API server must refuse for the field: beyond its bounds, of the wrong type, off its enum. */
export function invalidScalars(schema: OpenApiSchema, hint: FieldHint): Choice[] {
  const found: Choice[] = (hint.invalid ?? []).map((value) => ({
    value: value as Json,
    why: 'a listed invalid value',
  }));
  if (isQuantitySchema(schema)) {
    found.push({ value: 'lots', why: 'not a quantity' }, { value: true, why: 'of the wrong type' });
    const range = quantityRange(hint);
    if (range && hint.quantity?.refusedOutside) {
      if (range.min - range.step >= 0n)
        found.push({ value: `${range.min - range.step}m`, why: 'below the range' });
      found.push({ value: `${range.max + range.step}m`, why: 'above the range' });
    }
    return found;
  }
  if (schema.enum?.length) found.push({ value: 'not-in-the-enum', why: 'off the enum' });
  switch (schema.type) {
    case 'integer':
    case 'number':
      if (schema.minimum !== undefined) found.push({ value: schema.minimum - 1, why: 'below the minimum' });
      if (schema.maximum !== undefined) found.push({ value: schema.maximum + 1, why: 'above the maximum' });
      found.push({ value: 'seven', why: 'of the wrong type' });
      if (schema.type === 'integer') found.push({ value: 1.5, why: 'not whole' });
      break;
    case 'boolean':
      found.push({ value: 'yes', why: 'of the wrong type' });
      break;
    case 'string':
      if (schema.maxLength !== undefined)
        found.push({ value: 'x'.repeat(schema.maxLength + 1), why: 'too long' });
      if ((schema.minLength ?? 0) > 0)
        found.push({ value: 'x'.repeat((schema.minLength ?? 1) - 1), why: 'too short' });
      if (schema.pattern) {
        const pattern = new RegExp(schema.pattern);
        const off = [' ', '!', 'x y', '-'].find((s) => !pattern.test(s));
        if (off !== undefined) found.push({ value: off, why: 'off the pattern' });
      }
      found.push({ value: 42, why: 'of the wrong type' });
      break;
    case 'object':
      found.push({ value: 'an-object', why: 'of the wrong type' });
      break;
    case 'array':
      found.push({ value: 'a-list', why: 'of the wrong type' });
      break;
  }
  return found;
}
