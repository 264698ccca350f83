import { describe, expect, expectTypeOf, it } from 'vitest';
import type { ObjectClient } from './client/object-client.js';
import { type ByObject, cacheOptionsFor } from './internal/cache/informer-cache.js';
import { CONFIG_MAP, type ConfigMap, POD, type Pod } from './kinds/kinds.js';
import { type Kind, type KubeObject, kind, type Stored } from './object.js';
import { FakeClient } from './testing/fake-client.js';

interface Widget extends KubeObject {
  spec: { size: number };
}
const WIDGET = kind<Widget>('example.com/v1', 'Widget');

/** Checked by the compiler only: the calls would need objects to exist. */
function clientTypes(client: ObjectClient): void {
  expectTypeOf(client.get(WIDGET, 'w', 'ns')).resolves.toEqualTypeOf<Stored<Widget>>();
  expectTypeOf(client.list(POD)).resolves.toHaveProperty('items').toEqualTypeOf<Stored<Pod>[]>();
  expectTypeOf(client.patch({ ...WIDGET, name: 'w', namespace: 'ns' }, {})).resolves.toEqualTypeOf<
    Stored<Widget>
  >();
  // A plain type reference still takes the type it is given.
  expectTypeOf(client.get<ConfigMap>({ apiVersion: 'v1', kind: 'ConfigMap' }, 'c')).resolves.toEqualTypeOf<
    Stored<ConfigMap>
  >();
  // @ts-expect-error a Widget is no Pod
  void client.get<Pod>(WIDGET, 'w', 'ns');
}

describe('kind tokens', () => {
  it('are plain apiVersion and kind at run time, and a Kind of any object', () => {
    expect(WIDGET).toEqual({ apiVersion: 'example.com/v1', kind: 'Widget' });
    expectTypeOf(WIDGET).toExtend<Kind>();
    expectTypeOf(clientTypes).toBeFunction();
  });

  it('give the clients the type of their objects', async () => {
    const stored: Widget = { ...WIDGET, metadata: { name: 'w', namespace: 'ns' }, spec: { size: 1 } };
    const widget = await new FakeClient({ objects: [stored] }).get(WIDGET, 'w', 'ns');
    expect(widget.spec.size).toBe(1);
  });

  it('type the transform of byObject cache options by the kinds listed', () => {
    const byObject: ByObject = cacheOptionsFor([POD, CONFIG_MAP], {
      transform: (obj) => {
        expectTypeOf(obj).toEqualTypeOf<Stored<Pod> | Stored<ConfigMap>>();
        return obj;
      },
    });
    expect(byObject.map((entry) => entry.kind)).toEqual([POD, CONFIG_MAP]);
  });
});
