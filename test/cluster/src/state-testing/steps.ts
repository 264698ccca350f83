import { type FieldHints, hintFor } from './hints.js';
import { formatPath, isObject, type Json, jsonEqual, type Path, setAt } from './json-path.js';
import { isQuantitySchema, type OpenApiSchema } from './openapi.js';
import { quantityMillis, quantitySpellings } from './quantity.js';
import { seededRandom } from './random.js';
import { type Choice, invalidScalars, validScalar } from './values.js';

/**
 * One step of a state test: the whole spec to write next.
 * - `change`: a valid spec that differs from the previous one (the operator must converge to it);
 * - `respell`: the previous spec with a value spelled another way (`1Gi` as `1024Mi`, keys reordered), which
 *   must not change what the operator owns;
 * - `invalid`: the previous spec with one field broken, which the API server must refuse, naming `field`.
 */
export interface Step<Spec = Json> {
  readonly kind: 'change' | 'respell' | 'invalid';
  /** What the step does, e.g. `set spec.replicas to 3 (the maximum)`. */
  readonly description: string;
  /** The field the step touches, as the API server names it. */
  readonly field: string;
  readonly spec: Spec;
  /** For `respell`: the spec this one spells differently. */
  readonly respells?: Spec;
}

export interface StepGeneratorOptions<Spec> {
  /** The CRD's `spec` schema (see `specSchemaOf`). */
  readonly schema: OpenApiSchema;
  /** The spec the object is created with; every step derives from the one before. */
  readonly initial: Spec;
  readonly seed: number;
  readonly hints?: FieldHints;
  /**
   * Rules across fields the schema cannot state but the API enforces (a webhook's): valid steps that break
   * them are not generated.
   */
  readonly admissible?: (spec: Spec) => boolean;
  /** Shares of the step kinds. @default { change: 0.6, respell: 0.15, invalid: 0.25 } */
  readonly mix?: { readonly change: number; readonly respell: number; readonly invalid: number };
}

/** A place in the spec a step can touch. */
interface Site {
  readonly path: Path;
  readonly schema: OpenApiSchema;
  readonly value: Json | undefined;
  /** Whether the step may remove it: an optional property or a map entry. */
  readonly removable: boolean;
}

function isMap(schema: OpenApiSchema): schema is OpenApiSchema & { additionalProperties: OpenApiSchema } {
  return typeof schema.additionalProperties === 'object' && !schema.properties;
}

const KEY_ALPHABET = 'abcdefghijklmnopqrstuvwxyz';

/** Generates the sequence of steps for a seed: the same seed, schema and hints give the same steps. */
export function generateSteps<Spec>(options: StepGeneratorOptions<Spec>, count: number): Step<Spec>[] {
  const random = seededRandom(options.seed);
  const hints = options.hints ?? {};
  const mix = options.mix ?? { change: 0.6, respell: 0.15, invalid: 0.25 };
  const admissible = (spec: Json) => options.admissible?.(spec as Spec) ?? true;

  const generate = (schema: OpenApiSchema, path: Path, depth = 0): Json | undefined => {
    const hint = hintFor(hints, path);
    if (hint.skip) return undefined;
    if (schema.properties) {
      const object: Record<string, Json> = {};
      for (const [name, property] of Object.entries(schema.properties)) {
        if (!schema.required?.includes(name) && (depth > 3 || !random.chance(0.5))) continue;
        const value = generate(property, [...path, name], depth + 1);
        if (value !== undefined) object[name] = value;
      }
      return object;
    }
    if (isMap(schema)) {
      const keys = hint.keys ?? [randomKey()];
      const object: Record<string, Json> = {};
      for (const key of random.shuffle(keys).slice(0, random.int(1, keys.length))) {
        const value = generate(schema.additionalProperties, [...path, key], depth + 1);
        if (value !== undefined) object[key] = value;
      }
      return object;
    }
    if (schema.type === 'array' && schema.items) {
      if (hint.values?.length) return random.pick(hint.values) as Json;
      const length = random.int(schema.minItems ?? 0, Math.min(schema.maxItems ?? 4, 4));
      return arrayOf(schema.items, path, length);
    }
    return validScalar(schema, hint, random)?.value;
  };

  const arrayOf = (items: OpenApiSchema, path: Path, length: number): Json[] =>
    Array.from({ length }, (_, i) => generate(items, [...path, i]) ?? null);

  const randomKey = () => Array.from({ length: 6 }, () => random.pick([...KEY_ALPHABET])).join('');

  const sites = (spec: Json): Site[] => {
    const found: Site[] = [];
    const walk = (schema: OpenApiSchema, value: Json | undefined, path: Path, removable: boolean) => {
      if (hintFor(hints, path).skip) return;
      if (path.length > 0) found.push({ path, schema, value, removable });
      if (value === undefined || !isObject(value)) return;
      if (schema.properties) {
        for (const [name, property] of Object.entries(schema.properties)) {
          walk(property, value[name], [...path, name], !schema.required?.includes(name));
        }
      } else if (isMap(schema)) {
        for (const key of Object.keys(value))
          walk(schema.additionalProperties, value[key], [...path, key], true);
      }
    };
    walk(options.schema, spec, [], false);
    return found;
  };

  /** Valid changes of one site: add or remove it, a new value, or a list or map grown or shrunk. */
  const changes = (site: Site): Choice[] => {
    const { schema, value, path } = site;
    const found: Choice[] = [];
    if (value === undefined) {
      const added = generate(schema, path);
      return added === undefined ? [] : [{ value: added, why: 'added' }];
    }
    if (site.removable) found.push({ value: undefined, why: 'removed' });
    if (isMap(schema) && isObject(value)) {
      const hint = hintFor(hints, path);
      const free = (hint.keys ?? [randomKey()]).filter((k) => !(k in value));
      const key = free.length > 0 ? random.pick(free) : undefined;
      if (key !== undefined) {
        const entry = generate(schema.additionalProperties, [...path, key]);
        if (entry !== undefined) found.push({ value: { ...value, [key]: entry }, why: `with ${key}` });
      }
    } else if (schema.type === 'array' && schema.items && Array.isArray(value)) {
      const max = schema.maxItems ?? 8;
      const min = schema.minItems ?? 0;
      if (value.length < max)
        found.push({ value: [...value, ...arrayOf(schema.items, path, 1)], why: 'one item longer' });
      if (value.length > min) found.push({ value: value.slice(0, -1), why: 'one item shorter' });
      found.push({ value: arrayOf(schema.items, path, min), why: 'the fewest items' });
      found.push({ value: arrayOf(schema.items, path, max), why: 'the most items' });
    } else if (schema.properties) {
      const regenerated = generate(schema, path);
      if (regenerated !== undefined) found.push({ value: regenerated, why: 'replaced' });
    } else {
      const scalar = validScalar(schema, hintFor(hints, path), random);
      if (scalar) found.push(scalar);
    }
    return found;
  };

  /** The same value spelled another way: a quantity's other spellings, an object's keys in another order. */
  const respellings = (site: Site): Choice[] => {
    const { schema, value } = site;
    if (value === undefined || value === null) return [];
    if (isQuantitySchema(schema) && (typeof value === 'string' || typeof value === 'number')) {
      const millis = quantityMillis(value);
      if (millis === undefined || millis < 0n) return [];
      return quantitySpellings(millis)
        .filter((s) => s !== value)
        .map((s) => ({ value: s, why: `was ${JSON.stringify(value)}` }));
    }
    if (isObject(value) && Object.keys(value).length > 1) {
      const keys = Object.keys(value);
      const reordered = random.shuffle(keys);
      if (reordered.every((k, i) => k === keys[i])) reordered.reverse();
      return [
        { value: Object.fromEntries(reordered.map((k) => [k, value[k] as Json])), why: 'its keys reordered' },
      ];
    }
    return [];
  };

  /** Values the API must refuse at one site; a list too long for its `maxItems`, too. */
  const invalids = (site: Site): Choice[] => {
    const { schema, path } = site;
    const found = invalidScalars(schema, hintFor(hints, path));
    if (schema.type === 'array' && schema.items && schema.maxItems !== undefined) {
      found.push({ value: arrayOf(schema.items, path, schema.maxItems + 1), why: 'one item too many' });
    }
    return found;
  };

  const steps: Step<Spec>[] = [];
  let current = options.initial as Json;
  for (let rolls = 0; steps.length < count; rolls++) {
    if (rolls > count * 20 + 100) throw new Error('the schema leaves no steps to generate');
    const roll = random.next() * (mix.change + mix.respell + mix.invalid);
    const kind: Step['kind'] =
      roll < mix.change ? 'change' : roll < mix.change + mix.respell ? 'respell' : 'invalid';
    let step: Step<Spec> | undefined;
    for (let attempt = 0; attempt < 100 && !step; attempt++) {
      const site = random.pick(sites(current));
      const choices =
        kind === 'change' ? changes(site) : kind === 'respell' ? respellings(site) : invalids(site);
      if (choices.length === 0) continue;
      const choice = random.pick(choices);
      const next = setAt(current, site.path, choice.value);
      const field = formatPath(site.path);
      if (kind === 'invalid') {
        step = {
          kind,
          field,
          description: `${field}: ${JSON.stringify(choice.value)} (${choice.why})`,
          spec: next as Spec,
        };
      } else if (
        kind === 'respell' ? JSON.stringify(next) !== JSON.stringify(current) : !jsonEqual(next, current)
      ) {
        if (!admissible(next)) continue;
        const shown =
          choice.value === undefined ? choice.why : `${JSON.stringify(choice.value)} (${choice.why})`;
        step = {
          kind,
          field,
          description: `${field}: ${shown}`,
          spec: next as Spec,
          ...(kind === 'respell' ? { respells: current as Spec } : {}),
        };
      }
    }
    if (!step) continue; // nothing of this kind fits now: roll again
    steps.push(step);
    if (step.kind !== 'invalid') current = step.spec as Json;
  }
  return steps;
}
