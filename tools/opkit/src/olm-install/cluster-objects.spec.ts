import type { KubeObject, Stored } from '@opkit/controller-runtime';
import { ApiError, NoKindMatchError } from '@opkit/controller-runtime/client';
import { describe, expect, it } from 'vitest';
import { create, type KubeApi, list, read, remove } from './cluster-objects.js';

// What the installer makes of the client's refusals: OLM's kinds are not served before its CRDs are installed,
// and only show in discovery a moment after their CRDs are established.

const SUBSCRIPTION = { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'Subscription' };
const subscription = { ...SUBSCRIPTION, metadata: { name: 'redis', namespace: 'ops' } };
const noKind = () =>
  new NoKindMatchError({ group: 'operators.coreos.com', version: 'v1alpha1', kind: 'Subscription' });
const refused = (status: number, reason: string) =>
  new ApiError(status, reason, `${status} ${reason}`, 'GET', '/apis/operators.coreos.com/v1alpha1');

/** A client whose every call fails with `error`, counting the calls. */
function failing(error: () => Error): KubeApi & { calls: number } {
  const api = {
    calls: 0,
    async get(): Promise<never> {
      api.calls++;
      throw error();
    },
    async list(): Promise<never> {
      api.calls++;
      throw error();
    },
    async create(): Promise<never> {
      api.calls++;
      throw error();
    },
    async delete(): Promise<never> {
      api.calls++;
      throw error();
    },
  };
  return api;
}

describe("the installer's calls to the cluster", () => {
  it('take an object, or a kind not served, that is not there for no object', async () => {
    for (const error of [noKind, () => refused(404, 'NotFound')]) {
      const api = failing(error);
      expect(await read(api, subscription)).toBeUndefined();
      expect(await list(api, SUBSCRIPTION)).toEqual([]);
      expect(await remove(api, subscription)).toBe(false);
    }
  });

  it('pass any other refusal on', async () => {
    const api = failing(() => refused(403, 'Forbidden'));
    await expect(read(api, subscription)).rejects.toMatchObject({ status: 403 });
    await expect(list(api, SUBSCRIPTION)).rejects.toMatchObject({ status: 403 });
    await expect(remove(api, subscription)).rejects.toMatchObject({ status: 403 });
  });

  it('create an object once discovery shows its kind, until the deadline', async () => {
    const api = failing(noKind);
    let shown = false;
    api.create = async <T extends KubeObject>(object: T): Promise<Stored<T>> => {
      api.calls++;
      if (!shown) throw noKind();
      return object as Stored<T>;
    };
    setTimeout(() => {
      shown = true;
    }, 50);
    await create(api, subscription, Date.now() + 5_000);
    expect(api.calls).toBeGreaterThan(1);

    const never = failing(noKind);
    await expect(create(never, subscription, Date.now())).rejects.toBeInstanceOf(NoKindMatchError);
    expect(never.calls).toBe(1);
  });
});
