import { describe, expect, it } from 'vitest';
import { quantitiesEqual } from '../controllerutil/quantity.js';
import { containerResources } from './kinds.js';

describe('container resources from a spec', () => {
  it('writes quantities given as JSON numbers as the same quantity in string form', () => {
    const spec = { limits: { cpu: 0.5, memory: '1Gi' }, requests: { cpu: 2, memory: 1e21 } };
    const resources = containerResources(spec);
    expect(resources).toEqual({
      limits: { cpu: '0.5', memory: '1Gi' },
      requests: { cpu: '2', memory: '1e+21' },
    });
    for (const [list, values] of Object.entries(spec) as [
      keyof typeof spec,
      Record<string, string | number>,
    ][])
      for (const [name, q] of Object.entries(values))
        expect(quantitiesEqual(resources[list]?.[name] ?? '', q)).toBe(true);
  });

  it('leaves out the lists the spec leaves out', () => {
    expect(containerResources({})).toEqual({});
    expect(containerResources({ limits: { memory: '64Mi' } })).toEqual({ limits: { memory: '64Mi' } });
  });
});
