import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../object.js';
import { Conversions, stashFields, takeStashedFields } from './conversion.js';
import { BadRequestError } from './request.js';

// v1 has `size`; v2 (the hub) has `replicas` and a `mode` v1 cannot express, kept in an annotation.
interface V1 extends KubeObject {
  spec: { size: number };
}
interface V2 extends KubeObject {
  spec: { replicas: number; mode?: string };
}
const STASH = 'example.com/v2-fields';

function conversions(): Conversions {
  const c = new Conversions();
  c.register<V2>({
    group: 'example.com',
    kind: 'Widget',
    hub: 'v2',
    spokes: {
      v1: {
        toHub: (o: V1): V2 => {
          const kept = takeStashedFields(o, STASH);
          return {
            ...o,
            spec: { replicas: o.spec.size, ...(kept?.mode ? { mode: String(kept.mode) } : {}) },
          };
        },
        fromHub: (h: V2): V1 => {
          const out: V1 = { ...h, spec: { size: h.spec.replicas } };
          stashFields(out, STASH, { mode: h.spec.mode });
          return out;
        },
      },
    },
  });
  return c;
}

const v2: V2 = {
  apiVersion: 'example.com/v2',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'ns', uid: 'u', resourceVersion: '7', labels: { a: 'b' } },
  spec: { replicas: 2, mode: 'fast' },
};

describe('Conversions (hub and spokes)', () => {
  it('converts through the hub and back without losing what the spoke cannot express', () => {
    const c = conversions();
    const down = c.convert(v2, 'example.com/v1') as V1;
    expect(down.apiVersion).toBe('example.com/v1');
    expect(down.spec).toEqual({ size: 2 });
    expect(down.metadata.annotations).toEqual({ [STASH]: '{"mode":"fast"}' });
    expect(c.convert(down, 'example.com/v2')).toEqual(v2);
  });

  it('keeps all metadata but labels and annotations from the input', () => {
    const c = new Conversions();
    c.register<V2>({
      group: 'example.com',
      kind: 'Widget',
      hub: 'v2',
      spokes: { v1: { toHub: (o) => o as V2, fromHub: (h) => ({ ...h, metadata: { name: 'renamed' } }) } },
    });
    expect(c.convert(v2, 'example.com/v1').metadata).toEqual({
      name: 'w',
      namespace: 'ns',
      uid: 'u',
      resourceVersion: '7',
    });
  });

  it('answers a ConversionReview, with a Failure result for what it cannot convert', async () => {
    const c = conversions();
    const review = (objects: unknown[], desiredAPIVersion = 'example.com/v1') => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      request: { uid: 'r', desiredAPIVersion, objects },
    });
    const ok = await c.handle(review([v2, v2]));
    expect(ok.response.result).toEqual({ status: 'Success' });
    expect(ok.response.convertedObjects).toHaveLength(2);
    expect((await c.handle(review([v2], 'example.com/v9'))).response).toEqual({
      uid: 'r',
      convertedObjects: [],
      result: { status: 'Failure', message: 'Widget.example.com: no conversion for version v9' },
    });
    expect((await c.handle(review([{ ...v2, kind: 'Gadget' }]))).response.result).toEqual({
      status: 'Failure',
      message: 'no conversion registered for Gadget.example.com',
    });
    expect((await c.handle(review([42]))).response.result).toMatchObject({ status: 'Failure' });
    await expect(
      c.handle({ kind: 'ConversionReview', apiVersion: 'apiextensions.k8s.io/v1' }),
    ).rejects.toBeInstanceOf(BadRequestError);
  });

  it('ignores a stash edited into something that is not ours', () => {
    const o: KubeObject = { metadata: { annotations: { [STASH]: 'not json' } } };
    expect(takeStashedFields(o, STASH)).toBeUndefined();
    expect(o.metadata.annotations).toBeUndefined();
  });
});
