import { describe, expect, expectTypeOf, it } from 'vitest';
import type { CachedClient } from '../client/cached-client.js';
import { retryOnConflict } from '../client/direct-client.js';
import type { ObjectClient } from '../client/object-client.js';
import { setStatusCondition } from '../conditions/conditions.js';
import { ApiError, isAlreadyExists, isConflict, isNotFound } from '../errors/errors.js';
import { removeFinalizer } from '../finalizer/finalizers.js';
import { OWNER_UID_INDEX } from '../internal/cache/store.js';
import { type Condition, type Kind, type KubeObject, kind } from '../object.js';
import { setControllerReference } from '../ownerref/owner-references.js';
import type { Request } from '../reconcile/reconcile.js';
import { FakeClient } from './fake-client.js';

// --- fixtures ------------------------------------------------------------------------------------------------

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

interface Widget extends KubeObject {
  spec: { size: number; tags?: string[]; owner?: string };
  status?: { phase?: string; ready?: number };
}

const CONFIG_MAP = kind<ConfigMap>('v1', 'ConfigMap');
const WIDGET = kind<Widget>('example.com/v1', 'Widget');
const NOW = new Date('2026-01-02T03:04:05.678Z');

function configMap(name: string, namespace = 'default', labels?: Record<string, string>): ConfigMap {
  return { ...CONFIG_MAP, metadata: { name, namespace, ...(labels ? { labels } : {}) }, data: { key: name } };
}

function widget(name: string, size = 1): Widget {
  return { ...WIDGET, metadata: { name, namespace: 'default' }, spec: { size } };
}

/** A FakeClient where Widget has a status subresource, as its CRD declares. */
function widgetClient(...objects: Widget[]): FakeClient {
  return new FakeClient({ objects, statusSubresource: [WIDGET], now: () => NOW });
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error,
  );
}

// --- behaviour -----------------------------------------------------------------------------------------------

describe('FakeClient', () => {
  it('implements the same API as the manager CachedClient', () => {
    expectTypeOf<CachedClient>().toExtend<ObjectClient>();
    expectTypeOf<FakeClient>().toExtend<ObjectClient>();
  });

  it('hands out every object with the name, uid and resourceVersion the API server sets (Stored)', async () => {
    // Seeded without uid or resourceVersion: the client fills them in, as the server would have.
    const client = widgetClient(widget('seeded'));
    const created = await client.create(widget('created'));
    const updated = await client.update({ ...created, spec: { size: 2 } });
    const withStatus = await client.updateStatus({ ...updated, status: { phase: 'Ready' } });
    const target = { ...WIDGET, name: 'created', namespace: 'default' };
    const patched = await client.patch<Widget>(target, { spec: { size: 3 } });
    const appliedNew = await client.apply(widget('applied'));
    const appliedAgain = await client.apply({ ...widget('applied'), spec: { size: 4 } });
    const read = await client.get<Widget>(WIDGET, 'seeded', 'default');
    const listed = (await client.list<Widget>(WIDGET)).items;

    expect(listed).toHaveLength(3);
    for (const obj of [created, updated, withStatus, patched, appliedNew, appliedAgain, read, ...listed]) {
      expect(obj.metadata).toMatchObject({
        name: expect.any(String),
        uid: expect.stringMatching(/^[0-9a-f-]{36}$/),
        resourceVersion: expect.stringMatching(/^\d+$/),
      });
    }
  });

  describe('create, get and list', () => {
    it('create fills in uid, resourceVersion, generation and creationTimestamp', async () => {
      const client = widgetClient();

      const created = await client.create(widget('a'));

      expect(created.metadata).toStrictEqual({
        name: 'a',
        namespace: 'default',
        uid: expect.stringMatching(/^[0-9a-f-]{36}$/),
        resourceVersion: '1',
        generation: 1,
        creationTimestamp: '2026-01-02T03:04:05Z',
      });
      expect(await client.get(WIDGET, 'a', 'default')).toStrictEqual(created);
      // one resourceVersion counter for every object
      expect((await client.create(configMap('b'))).metadata.resourceVersion).toBe('2');
    });

    it('create generates a name from generateName', async () => {
      const client = new FakeClient();

      const created = await client.create<ConfigMap>({
        ...CONFIG_MAP,
        metadata: { generateName: 'job-', namespace: 'ns' },
      });

      expect(created.metadata.name).toMatch(/^job-[a-z0-9]{5}$/);
      expect(await client.get(CONFIG_MAP, created.metadata.name, 'ns')).toStrictEqual(created);
    });

    it('create fails with 409 AlreadyExists when the object exists', async () => {
      const client = new FakeClient({ objects: [configMap('a')] });

      const error = await failure(client.create(configMap('a')));

      expect(isAlreadyExists(error)).toBe(true);
      expect(error).toMatchObject({ status: 409, reason: 'AlreadyExists' });
    });

    it('get fails with 404 NotFound for a missing object', async () => {
      const client = new FakeClient({ objects: [configMap('a', 'ns-1')] });

      expect(isNotFound(await failure(client.get(CONFIG_MAP, 'a', 'ns-2')))).toBe(true);
    });

    it('get and list return frozen copies, as the cache does: changing them throws', async () => {
      const client = new FakeClient({ objects: [configMap('a')] });

      const got = await client.get<ConfigMap>(CONFIG_MAP, 'a', 'default');
      expect(() => {
        got.data!.key = 'changed';
      }).toThrow(TypeError);
      const listed = await client.list<ConfigMap>(CONFIG_MAP);
      expect(() => {
        listed.items[0]!.metadata.name = 'changed';
      }).toThrow(TypeError);
      const copy = structuredClone(got);
      copy.data!.key = 'changed';

      expect((await client.get<ConfigMap>(CONFIG_MAP, 'a', 'default')).data).toStrictEqual({ key: 'a' });
    });

    it('list filters by namespace and label selector, sorted by namespace/name', async () => {
      const client = new FakeClient({
        objects: [
          configMap('web', 'prod', { app: 'web', tier: 'frontend' }),
          configMap('db', 'prod', { app: 'db', tier: 'backend' }),
          configMap('web', 'dev', { app: 'web', tier: 'frontend' }),
          configMap('cache', 'dev', { app: 'cache' }),
        ],
      });
      const names = async (options: Parameters<FakeClient['list']>[1]) =>
        (await client.list(CONFIG_MAP, options)).items.map(
          (o) => `${o.metadata.namespace}/${o.metadata.name}`,
        );

      expect(await names({})).toStrictEqual(['dev/cache', 'dev/web', 'prod/db', 'prod/web']);
      expect(await names({ namespace: 'prod' })).toStrictEqual(['prod/db', 'prod/web']);
      expect(await names({ labelSelector: 'app=web' })).toStrictEqual(['dev/web', 'prod/web']);
      expect(await names({ labelSelector: 'tier, tier notin (backend)', namespace: 'dev' })).toStrictEqual([
        'dev/web',
      ]);
      expect(await names({ labelSelector: '!tier' })).toStrictEqual(['dev/cache']);
    });

    it('list selects by registered indexes with matchingFields, as the cache does', async () => {
      const owner = { ...widget('owner'), metadata: { name: 'owner', namespace: 'default', uid: 'uid-1' } };
      const owned = configMap('owned');
      setControllerReference(owner, owned);
      const client = new FakeClient({ objects: [owner, owned, configMap('other')] });
      client.indexField<ConfigMap>(CONFIG_MAP, 'data.key', (cm) => (cm.data?.key ? [cm.data.key] : []));

      const byKey = await client.list(CONFIG_MAP, { matchingFields: { 'data.key': 'other' } });
      const byOwner = await client.list(CONFIG_MAP, { matchingFields: { [OWNER_UID_INDEX]: 'uid-1' } });

      expect(byKey.items.map((o) => o.metadata.name)).toStrictEqual(['other']);
      expect(byOwner.items.map((o) => o.metadata.name)).toStrictEqual(['owned']);
      await expect(client.list(CONFIG_MAP, { matchingFields: { 'spec.unknown': 'x' } })).rejects.toThrow(
        /register it with indexField/,
      );
      await expect(client.list(CONFIG_MAP, { fieldSelector: 'metadata.name=a' })).rejects.toThrow(
        /matchingFields/,
      );
    });
  });

  describe('update', () => {
    it('fails with 409 Conflict when the object was changed since it was read', async () => {
      const client = widgetClient(widget('a'));
      const mine = await client.get<Widget>(WIDGET, 'a', 'default');
      const theirs = await client.get<Widget>(WIDGET, 'a', 'default');
      await client.update({ ...theirs, spec: { size: 2 } });

      const error = await failure(client.update({ ...mine, spec: { size: 3 } }));

      expect(isConflict(error)).toBe(true);
      expect((await client.get<Widget>(WIDGET, 'a', 'default')).spec.size).toBe(2);
    });

    it('succeeds on retry with a fresh read (retryOnConflict)', async () => {
      const client = widgetClient(widget('a'));
      const stale = await client.get<Widget>(WIDGET, 'a', 'default');
      await client.update({ ...stale, spec: { size: 2 } });
      let attempt = 0;

      const updated = await retryOnConflict(
        async () => {
          const latest = attempt++ === 0 ? stale : await client.get<Widget>(WIDGET, 'a', 'default');
          return client.update({ ...latest, spec: { ...latest.spec, tags: ['x'] } });
        },
        { delayMs: 0 },
      );

      expect(attempt).toBe(2);
      expect(updated.spec).toStrictEqual({ size: 2, tags: ['x'] });
    });

    it('bumps generation when the spec changes, not when only metadata changes', async () => {
      const client = widgetClient(widget('a'));
      const v1 = await client.get<Widget>(WIDGET, 'a', 'default');

      const relabelled = await client.update({ ...v1, metadata: { ...v1.metadata, labels: { team: 'x' } } });
      const resized = await client.update({ ...relabelled, spec: { size: 5 } });

      expect(relabelled.metadata.generation).toBe(1);
      expect(Number(relabelled.metadata.resourceVersion)).toBeGreaterThan(
        Number(v1.metadata.resourceVersion),
      );
      expect(resized.metadata.generation).toBe(2);
    });

    it('writes nothing when nothing changed: resourceVersion stays', async () => {
      const client = widgetClient(widget('a'));
      const current = await client.get<Widget>(WIDGET, 'a', 'default');

      const updated = await client.update(current);

      expect(updated.metadata.resourceVersion).toBe(current.metadata.resourceVersion);
    });

    it('keeps what only the server sets: uid, creationTimestamp, generation', async () => {
      const client = widgetClient(widget('a'));
      const current = await client.get<Widget>(WIDGET, 'a', 'default');

      const updated = await client.update({
        ...current,
        metadata: { ...current.metadata, creationTimestamp: '2000-01-01T00:00:00Z', generation: 42 },
      });

      expect(updated.metadata).toStrictEqual({
        ...current.metadata,
        resourceVersion: updated.metadata.resourceVersion,
      });
    });

    it('ignores a deletionTimestamp set by the client: only delete sets it', async () => {
      const client = widgetClient(widget('a'));
      const current = await client.get<Widget>(WIDGET, 'a', 'default');

      const updated = await client.update({
        ...current,
        metadata: { ...current.metadata, labels: { x: 'y' }, deletionTimestamp: '2026-01-01T00:00:00Z' },
      });

      expect(updated.metadata.deletionTimestamp).toBeUndefined();
      expect(updated.metadata.labels).toStrictEqual({ x: 'y' });
    });
  });

  describe('status subresource', () => {
    it('update keeps the stored status of a kind with a status subresource', async () => {
      const client = widgetClient({ ...widget('a'), status: { phase: 'Running' } });
      const current = await client.get<Widget>(WIDGET, 'a', 'default');

      const updated = await client.update({ ...current, spec: { size: 2 }, status: { phase: 'Hacked' } });

      expect(updated.status).toStrictEqual({ phase: 'Running' });
      expect(updated.spec.size).toBe(2);
    });

    it('updateStatus changes only the status, and not the generation', async () => {
      const client = widgetClient(widget('a'));
      const current = await client.get<Widget>(WIDGET, 'a', 'default');

      const updated = await client.updateStatus({
        ...current,
        spec: { size: 9 },
        status: { phase: 'Ready' },
      });

      expect(updated.status).toStrictEqual({ phase: 'Ready' });
      expect(updated.spec.size).toBe(1);
      expect(updated.metadata.generation).toBe(1);
      expect(updated.metadata.resourceVersion).not.toBe(current.metadata.resourceVersion);
    });

    it('updateStatus fails with 409 Conflict on a stale resourceVersion', async () => {
      const client = widgetClient(widget('a'));
      const stale = await client.get<Widget>(WIDGET, 'a', 'default');
      await client.update({ ...stale, spec: { size: 2 } });

      expect(isConflict(await failure(client.updateStatus({ ...stale, status: { phase: 'Ready' } })))).toBe(
        true,
      );
    });

    it('create drops the status of a kind with a status subresource; seeded objects keep theirs', async () => {
      const client = widgetClient({ ...widget('seeded'), status: { phase: 'Running' } });

      const created = await client.create({ ...widget('created'), status: { phase: 'Running' } });

      expect(created.status).toBeUndefined();
      expect((await client.get<Widget>(WIDGET, 'seeded', 'default')).status).toStrictEqual({
        phase: 'Running',
      });
    });

    it('a kind without a status subresource: update writes status, updateStatus fails with 404', async () => {
      const client = new FakeClient({ objects: [widget('a')] });
      const current = await client.get<Widget>(WIDGET, 'a', 'default');

      const updated = await client.update({ ...current, status: { phase: 'Ready' } });
      const error = await failure(client.updateStatus(updated));

      expect(updated.status).toStrictEqual({ phase: 'Ready' });
      expect(updated.metadata.generation).toBe(1);
      expect(isNotFound(error)).toBe(true);
      expect((error as Error).message).toMatch(/statusSubresource/);
    });
  });

  describe('patch', () => {
    const target = { ...WIDGET, name: 'a', namespace: 'default' };

    it('merge patch (RFC 7386) merges objects, replaces arrays and deletes fields set to null', async () => {
      const client = widgetClient({
        ...widget('a'),
        metadata: { name: 'a', namespace: 'default', labels: { keep: 'yes', drop: 'yes' } },
        spec: { size: 1, tags: ['a', 'b'], owner: 'me' },
      });

      const patched = await client.patch<Widget>(target, {
        metadata: { labels: { drop: null, added: 'yes' } },
        spec: { tags: ['c'], owner: null },
      });

      expect(patched.metadata.labels).toStrictEqual({ keep: 'yes', added: 'yes' });
      expect(patched.spec).toStrictEqual({ size: 1, tags: ['c'] });
      expect(patched.metadata.generation).toBe(2);
    });

    it('merge patch on the status subresource changes only the status', async () => {
      const client = widgetClient({ ...widget('a'), status: { phase: 'Pending', ready: 0 } });

      const patched = await client.patch<Widget>(
        target,
        { spec: { size: 7 }, status: { phase: 'Ready', ready: null } },
        'merge',
        { subresource: 'status' },
      );

      expect(patched.status).toStrictEqual({ phase: 'Ready' });
      expect(patched.spec.size).toBe(1);
      expect(patched.metadata.generation).toBe(1);
    });

    it('merge patch on the object leaves the status of a status-subresource kind alone', async () => {
      const client = widgetClient({ ...widget('a'), status: { phase: 'Pending' } });

      const patched = await client.patch<Widget>(target, { status: { phase: 'Ready' } });

      expect(patched.status).toStrictEqual({ phase: 'Pending' });
    });

    it('a patch carrying a stale resourceVersion fails with 409 Conflict (optimistic locking)', async () => {
      const client = widgetClient(widget('a'));
      const read = await client.get<Widget>(WIDGET, 'a', 'default');
      await client.patch(target, { spec: { size: 2 } });

      const error = await failure(
        client.patch(target, {
          metadata: { resourceVersion: read.metadata.resourceVersion },
          spec: { size: 3 },
        }),
      );

      expect(isConflict(error)).toBe(true);
    });

    it('json patch (RFC 6902) applies add, replace, remove and test in order', async () => {
      const client = widgetClient({ ...widget('a'), spec: { size: 1, tags: ['a', 'c'], owner: 'me' } });

      const patched = await client.patch<Widget>(
        target,
        [
          { op: 'test', path: '/spec/size', value: 1 },
          { op: 'replace', path: '/spec/size', value: 2 },
          { op: 'add', path: '/spec/tags/1', value: 'b' },
          { op: 'add', path: '/spec/tags/-', value: 'd' },
          { op: 'remove', path: '/spec/owner' },
          { op: 'add', path: '/metadata/annotations', value: { 'example.com/a~b': 'x' } },
          { op: 'replace', path: '/metadata/annotations/example.com~1a~0b', value: 'y' },
        ],
        'json',
      );

      expect(patched.spec).toStrictEqual({ size: 2, tags: ['a', 'b', 'c', 'd'] });
      expect(patched.metadata.annotations).toStrictEqual({ 'example.com/a~b': 'y' });
    });

    it('json patch fails with 422 Invalid when a test fails or a path is missing, and changes nothing', async () => {
      const client = widgetClient(widget('a'));
      const before = await client.get(WIDGET, 'a', 'default');

      const testFailed = await failure(
        client.patch(
          target,
          [
            { op: 'replace', path: '/spec/size', value: 5 },
            { op: 'test', path: '/spec/size', value: 1 },
          ],
          'json',
        ),
      );
      const missing = await failure(client.patch(target, [{ op: 'remove', path: '/spec/nothing' }], 'json'));
      const malformed = await failure(client.patch(target, { op: 'remove' }, 'json'));

      expect(testFailed).toMatchObject({ status: 422, reason: 'Invalid' });
      expect(missing).toMatchObject({ status: 422, reason: 'Invalid' });
      expect(malformed).toMatchObject({ status: 400, reason: 'BadRequest' });
      expect(await client.get(WIDGET, 'a', 'default')).toStrictEqual(before);
    });

    it('strategic merge patch is not supported', async () => {
      const client = widgetClient(widget('a'));

      await expect(client.patch(target, { spec: { size: 2 } }, 'strategic')).rejects.toThrow(
        /not supported by FakeClient/,
      );
    });

    it('patching a missing object fails with 404 NotFound', async () => {
      const client = widgetClient();

      expect(isNotFound(await failure(client.patch(target, { spec: { size: 2 } })))).toBe(true);
    });
  });

  describe('apply (simplified server-side apply)', () => {
    it('creates a missing object, then merges the given fields into it, arrays replaced', async () => {
      const client = widgetClient();

      const created = await client.apply<Widget>({ ...widget('a'), spec: { size: 1, tags: ['a', 'b'] } });
      const merged = await client.apply<Widget>({
        ...WIDGET,
        metadata: { name: 'a', namespace: 'default', labels: { applied: 'yes' } },
        spec: { size: 1, tags: ['c'] },
      });
      const again = await client.apply<Widget>({
        ...WIDGET,
        metadata: { name: 'a', namespace: 'default', labels: { applied: 'yes' } },
        spec: { size: 1, tags: ['c'] },
      });

      expect(created.metadata.generation).toBe(1);
      expect(merged.spec).toStrictEqual({ size: 1, tags: ['c'] });
      expect(merged.metadata.labels).toStrictEqual({ applied: 'yes' });
      expect(merged.metadata.generation).toBe(2);
      // applying the same configuration again is a no-op
      expect(again.metadata.resourceVersion).toBe(merged.metadata.resourceVersion);
    });

    it('applies the status subresource with { subresource: "status" }', async () => {
      const client = widgetClient({ ...widget('a'), status: { phase: 'Pending', ready: 0 } });

      const applied = await client.apply<Widget>(
        { ...WIDGET, metadata: { name: 'a', namespace: 'default' }, spec: { size: 9 }, status: { ready: 3 } },
        { subresource: 'status' },
      );

      expect(applied.status).toStrictEqual({ phase: 'Pending', ready: 3 });
      expect(applied.spec.size).toBe(1);
    });
  });

  describe('delete and finalizers', () => {
    const target = { ...WIDGET, name: 'a', namespace: 'default' };
    const FINALIZER = 'example.com/cleanup';

    it('delete removes an object without finalizers', async () => {
      const client = widgetClient(widget('a'));

      await client.delete(target);

      expect(isNotFound(await failure(client.get(WIDGET, 'a', 'default')))).toBe(true);
      expect(isNotFound(await failure(client.delete(target)))).toBe(true);
    });

    it('an object with finalizers is only marked, and goes when the update removes its last finalizer', async () => {
      const client = widgetClient({
        ...widget('a'),
        metadata: { name: 'a', namespace: 'default', finalizers: [FINALIZER] },
      });

      await client.delete(target);
      const deleting = await client.get<Widget>(WIDGET, 'a', 'default');
      await client.delete(target); // deleting again changes nothing
      expect(await client.get(WIDGET, 'a', 'default')).toStrictEqual(deleting);

      expect(deleting.metadata.deletionTimestamp).toBe('2026-01-02T03:04:05Z');
      expect(deleting.metadata.generation).toBe(2);
      // the controller sees the deletionTimestamp, cleans up, and removes its finalizer
      const copy = structuredClone(deleting);
      removeFinalizer(copy, FINALIZER);
      await client.update(copy);
      expect(isNotFound(await failure(client.get(WIDGET, 'a', 'default')))).toBe(true);
    });

    it('a patch that empties the finalizers of an object being deleted removes it too', async () => {
      const client = widgetClient({
        ...widget('a'),
        metadata: { name: 'a', namespace: 'default', finalizers: [FINALIZER, 'other'] },
      });
      await client.delete(target);

      await client.patch(target, { metadata: { finalizers: ['other'] } });
      expect((await client.get(WIDGET, 'a', 'default')).metadata.finalizers).toStrictEqual(['other']);
      await client.patch(target, [{ op: 'remove', path: '/metadata/finalizers' }], 'json');

      expect((await client.list(WIDGET)).items).toStrictEqual([]);
    });

    it('no finalizer can be added to an object being deleted', async () => {
      const client = widgetClient({
        ...widget('a'),
        metadata: { name: 'a', namespace: 'default', finalizers: [FINALIZER] },
      });
      await client.delete(target);

      const error = await failure(client.patch(target, { metadata: { finalizers: [FINALIZER, 'new'] } }));

      expect(error).toMatchObject({ status: 422, reason: 'Invalid' });
    });

    it('delete fails with 409 Conflict when a resourceVersion precondition does not hold', async () => {
      const client = widgetClient(widget('a'));

      const error = await failure(client.delete(target, { preconditions: { resourceVersion: '999' } }));

      expect(isConflict(error)).toBe(true);
    });

    it('delete does NOT garbage-collect dependents', async () => {
      const client = widgetClient(widget('a'));
      const owner = await client.get<Widget>(WIDGET, 'a', 'default');
      const dependent = configMap('a-config');
      setControllerReference(owner, dependent);
      await client.create(dependent);

      await client.delete(target, { propagationPolicy: 'Foreground' });

      expect((await client.get(CONFIG_MAP, 'a-config', 'default')).metadata.ownerReferences).toHaveLength(1);
    });
  });

  describe('action log', () => {
    it('records every call in order, failed ones included; writes() keeps the mutating ones', async () => {
      const client = new FakeClient({ objects: [configMap('a')] });

      await client.get(CONFIG_MAP, 'a', 'default');
      await client.list(CONFIG_MAP, { namespace: 'default' });
      await failure(client.create(configMap('a')));
      await client.patch({ ...CONFIG_MAP, name: 'a', namespace: 'default' }, { data: { key: 'b' } });
      await client.delete({ ...CONFIG_MAP, name: 'a', namespace: 'default' });

      expect(client.actions).toStrictEqual([
        { verb: 'get', kind: 'ConfigMap', namespace: 'default', name: 'a' },
        { verb: 'list', kind: 'ConfigMap', namespace: 'default' },
        { verb: 'create', kind: 'ConfigMap', namespace: 'default', name: 'a' },
        { verb: 'patch', kind: 'ConfigMap', namespace: 'default', name: 'a' },
        { verb: 'delete', kind: 'ConfigMap', namespace: 'default', name: 'a' },
      ]);
      expect(client.writes().map((a) => a.verb)).toStrictEqual(['create', 'patch', 'delete']);
    });

    it('reset() clears the log but keeps the objects; seeding records nothing', async () => {
      const client = new FakeClient({ objects: [configMap('a')] });
      client.add(configMap('b'));
      expect(client.actions).toStrictEqual([]);
      await client.create(configMap('c'));

      client.reset();

      expect(client.actions).toStrictEqual([]);
      expect((await client.list(CONFIG_MAP)).items).toHaveLength(3);
    });
  });

  describe('interceptors', () => {
    it('make the third update fail with a 500, without touching the object', async () => {
      const client = new FakeClient({
        objects: [configMap('a')],
        interceptors: {
          update: ({ count, obj }) =>
            count === 3
              ? Promise.reject(
                  new ApiError(500, 'InternalError', `etcd is down (${obj.metadata.name})`, 'PUT', ''),
                )
              : undefined,
        },
      });
      const bump = async (value: string) => {
        const cm = await client.get<ConfigMap>(CONFIG_MAP, 'a', 'default');
        return client.update({ ...cm, data: { key: value } });
      };

      await bump('1');
      await bump('2');
      const error = await failure(bump('3'));
      await bump('4');

      expect(error).toMatchObject({ status: 500, reason: 'InternalError', message: 'etcd is down (a)' });
      expect(client.writes()).toHaveLength(4);
      expect((await client.get<ConfigMap>(CONFIG_MAP, 'a', 'default')).data).toStrictEqual({ key: '4' });
    });

    it('can wrap the real call with next()', async () => {
      const seen: string[] = [];
      const client = new FakeClient({
        interceptors: {
          create: async ({ obj, next }) => {
            seen.push(`before ${obj.metadata.name}`);
            const created = await next();
            seen.push(`after ${created.metadata.resourceVersion}`);
            return created;
          },
        },
      });

      await client.create(configMap('a'));

      expect(seen).toStrictEqual(['before a', 'after 1']);
      expect(await client.get(CONFIG_MAP, 'a', 'default')).toBeDefined();
    });
  });
});

// --- example: testing a reconciler -------------------------------------------------------------------------------

/** A custom resource: a message to publish in a ConfigMap. */
interface Greeting extends KubeObject {
  spec: { message: string };
  status?: { configMapName?: string; conditions?: Condition[] };
}

const GREETING = kind<Greeting>('example.com/v1', 'Greeting');

/** The object, or undefined when it does not exist. */
async function getIfExists<T extends KubeObject>(
  client: ObjectClient,
  type: Kind<T>,
  name: string,
  namespace?: string,
): Promise<T | undefined> {
  try {
    return await client.get<T>(type, name, namespace);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/**
 * The reconciler under test: ensures a ConfigMap `<name>-greeting` holding the Greeting's message, owned by
 * the Greeting, and reports it in the Greeting's status. Written against ObjectClient, so the manager's
 * CachedClient runs it in production and a FakeClient in unit tests.
 */
async function reconcileGreeting(client: ObjectClient, request: Request): Promise<void> {
  const greeting = await getIfExists<Greeting>(client, GREETING, request.name, request.namespace);
  if (!greeting) return; // deleted: the ConfigMap goes with it (garbage collection, not simulated by FakeClient)

  const name = `${request.name}-greeting`;
  const configMap = await getIfExists<ConfigMap>(client, CONFIG_MAP, name, request.namespace);
  if (!configMap) {
    const desired: ConfigMap = {
      ...CONFIG_MAP,
      metadata: { name, namespace: request.namespace },
      data: { message: greeting.spec.message },
    };
    setControllerReference(greeting, desired);
    await client.create(desired);
  } else if (configMap.data?.message !== greeting.spec.message) {
    await client.update({ ...configMap, data: { ...configMap.data, message: greeting.spec.message } });
  }

  const { conditions, changed } = setStatusCondition(greeting.status?.conditions, {
    type: 'Ready',
    status: 'True',
    reason: 'ConfigMapUpToDate',
    message: `ConfigMap ${name} holds the message`,
    observedGeneration: greeting.metadata.generation,
  });
  if (changed || greeting.status?.configMapName !== name) {
    await client.updateStatus({ ...greeting, status: { configMapName: name, conditions } });
  }
}

describe('example: unit-testing a reconciler with FakeClient', () => {
  const request: Request = { namespace: 'default', name: 'hello' };

  function setup(): FakeClient {
    const greeting: Greeting = {
      ...GREETING,
      metadata: { name: 'hello', namespace: 'default' },
      spec: { message: 'hi' },
    };
    return new FakeClient({ objects: [greeting], statusSubresource: [GREETING], now: () => NOW });
  }

  it('creates the owned ConfigMap and reports Ready on the first reconcile', async () => {
    const client = setup();

    await reconcileGreeting(client, request);

    const greeting = await client.get<Greeting>(GREETING, 'hello', 'default');
    const configMap = await client.get<ConfigMap>(CONFIG_MAP, 'hello-greeting', 'default');
    expect(configMap.data).toStrictEqual({ message: 'hi' });
    expect(configMap.metadata.ownerReferences).toStrictEqual([
      { ...GREETING, name: 'hello', uid: greeting.metadata.uid, controller: true, blockOwnerDeletion: true },
    ]);
    expect(greeting.status?.conditions).toMatchObject([
      { type: 'Ready', status: 'True', observedGeneration: 1 },
    ]);
    expect(client.writes()).toStrictEqual([
      { verb: 'create', kind: 'ConfigMap', namespace: 'default', name: 'hello-greeting' },
      { verb: 'updateStatus', kind: 'Greeting', namespace: 'default', name: 'hello' },
    ]);
  });

  it('makes zero writes on the second reconcile', async () => {
    const client = setup();
    await reconcileGreeting(client, request);
    client.reset();

    await reconcileGreeting(client, request);

    expect(client.writes()).toStrictEqual([]);
    expect(client.actions.map((a) => a.verb)).toStrictEqual(['get', 'get']);
  });

  it('repairs a ConfigMap changed behind its back, and nothing else', async () => {
    const client = setup();
    await reconcileGreeting(client, request);
    await client.patch(
      { ...CONFIG_MAP, name: 'hello-greeting', namespace: 'default' },
      { data: { message: 'tampered' } },
    );
    client.reset();

    await reconcileGreeting(client, request);

    expect(client.writes()).toStrictEqual([
      { verb: 'update', kind: 'ConfigMap', namespace: 'default', name: 'hello-greeting' },
    ]);
    expect((await client.get<ConfigMap>(CONFIG_MAP, 'hello-greeting', 'default')).data).toStrictEqual({
      message: 'hi',
    });
  });

  it('retries cleanly after a failed write', async () => {
    const client = new FakeClient({
      objects: [
        {
          ...GREETING,
          metadata: { name: 'hello', namespace: 'default' },
          spec: { message: 'hi' },
        } as Greeting,
      ],
      statusSubresource: [GREETING],
      interceptors: {
        updateStatus: ({ count }) =>
          count === 1 ? Promise.reject(new ApiError(500, 'InternalError', 'boom', 'PUT', '')) : undefined,
      },
    });

    await expect(reconcileGreeting(client, request)).rejects.toThrow('boom');
    client.reset();
    await reconcileGreeting(client, request);

    // the ConfigMap from the first attempt is kept; only the status is written again
    expect(client.writes().map((a) => a.verb)).toStrictEqual(['updateStatus']);
  });
});
