import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../object.js';
import {
  type AdmissionReview,
  defaultingHandler,
  invalidObject,
  type Validator,
  validatingHandler,
} from './admission.js';
import { applyJsonPatch, type JsonPatchOperation } from './json-patch.js';
import { BadRequestError } from './request.js';
import { schemaValidator } from './schema-validator.js';

interface Widget extends KubeObject {
  spec: { size: number; port?: number };
}

const widget = (spec: Record<string, unknown>): KubeObject & { spec: Record<string, unknown> } => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'ns' },
  spec,
});

const review = (operation: string, object?: unknown, oldObject?: unknown) => ({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: 'u-1',
    kind: { group: 'example.com', version: 'v1', kind: 'Widget' },
    operation,
    object,
    oldObject,
  },
});

const schema = schemaValidator({
  type: 'object',
  properties: { spec: { type: 'object', properties: { size: { type: 'integer' } }, required: ['size'] } },
});

const patchOf = (answer: AdmissionReview): JsonPatchOperation[] =>
  JSON.parse(Buffer.from(answer.response?.patch ?? 'W10=', 'base64').toString('utf8'));

describe('defaultingHandler', () => {
  const handler = defaultingHandler<Widget>((w) => {
    w.spec.port ??= 11211;
  }, schema);

  it('answers with the JSON Patch of what the defaulter set, echoing the uid and apiVersion', async () => {
    const answer = await handler(review('CREATE', widget({ size: 1 })));
    expect(answer.apiVersion).toBe('admission.k8s.io/v1');
    expect(answer.response).toMatchObject({ uid: 'u-1', allowed: true, patchType: 'JSONPatch' });
    expect(patchOf(answer)).toEqual([{ op: 'add', path: '/spec/port', value: 11211 }]);
    expect(applyJsonPatch(widget({ size: 1 }), patchOf(answer))).toEqual(widget({ size: 1, port: 11211 }));
  });

  it('sends no patch when nothing changes, and leaves deletes and objects off the schema alone', async () => {
    expect((await handler(review('CREATE', widget({ size: 1, port: 1 })))).response).toEqual({
      uid: 'u-1',
      allowed: true,
    });
    expect((await handler(review('DELETE', undefined, widget({ size: 1 })))).response?.patch).toBeUndefined();
    expect((await handler(review('CREATE', widget({ size: 'one' })))).response).toEqual({
      uid: 'u-1',
      allowed: true,
    });
  });

  it('refuses the request when the defaulter throws', async () => {
    const failing = defaultingHandler<Widget>(() => {
      throw new Error('no defaults for you');
    });
    expect((await failing(review('CREATE', widget({ size: 1 })))).response).toEqual({
      uid: 'u-1',
      allowed: false,
      status: { code: 403, reason: 'Forbidden', message: 'no defaults for you' },
    });
  });

  it('rejects what is no AdmissionReview as a bad request', async () => {
    for (const body of [
      null,
      [],
      { kind: 'AdmissionReview', apiVersion: 'admission.k8s.io/v2', request: { uid: 'x' } },
      { kind: 'AdmissionReview', apiVersion: 'admission.k8s.io/v1' },
      { ...review('CREATE'), request: { uid: 'x', operation: 'FLY' } },
      review('CREATE', { metadata: 'no' }),
    ]) {
      await expect(handler(body)).rejects.toBeInstanceOf(BadRequestError);
    }
  });
});

describe('validatingHandler', () => {
  const validator: Validator<Widget> = {
    validateCreate: (w) => {
      if (w.spec.size > 3)
        throw invalidObject(w, [{ field: 'spec.size', value: w.spec.size, message: 'at most 3' }]);
      return w.spec.size === 3 ? ['size 3 is the most this version allows'] : undefined;
    },
    validateUpdate: (old, w) => {
      if (old.spec.port !== w.spec.port) {
        throw invalidObject(w, [
          { field: 'spec.port', value: w.spec.port, message: 'is immutable' },
          { field: 'spec.other', message: 'must be set' },
        ]);
      }
      return undefined;
    },
  };
  const handler = validatingHandler(validator, schema);

  it('allows with the validator’s warnings', async () => {
    expect((await handler(review('CREATE', widget({ size: 3 })))).response).toEqual({
      uid: 'u-1',
      allowed: true,
      warnings: ['size 3 is the most this version allows'],
    });
  });

  it('refuses with the status Kubernetes’ own validation gives', async () => {
    expect((await handler(review('CREATE', widget({ size: 4 })))).response).toEqual({
      uid: 'u-1',
      allowed: false,
      status: {
        code: 422,
        reason: 'Invalid',
        message: 'Widget.example.com "w" is invalid: spec.size: Invalid value: 4: at most 3',
        details: {
          name: 'w',
          group: 'example.com',
          kind: 'Widget',
          causes: [
            { reason: 'FieldValueInvalid', message: 'Invalid value: 4: at most 3', field: 'spec.size' },
          ],
        },
      },
    });
    const update = await handler(
      review('UPDATE', widget({ size: 1, port: 2 }), widget({ size: 1, port: 1 })),
    );
    expect(update.response?.status?.message).toBe(
      'Widget.example.com "w" is invalid: [spec.port: Invalid value: 2: is immutable, spec.other: Required value: must be set]',
    );
  });

  it('allows operations the validator has no method for', async () => {
    expect((await handler(review('DELETE', undefined, widget({ size: 9 })))).response?.allowed).toBe(true);
  });
});
