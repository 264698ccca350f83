import { describe, expect, it } from 'vitest';
import { fleetLayout } from './fleet.js';

describe('fleetLayout', () => {
  it('keeps a fleet in the run’s own namespace by default', () => {
    expect(fleetLayout('bench-opkit-3-1', 1, 3)).toEqual({
      namespaces: ['bench-opkit-3-1'],
      members: [
        { namespace: 'bench-opkit-3-1', name: 'mc-00000' },
        { namespace: 'bench-opkit-3-1', name: 'mc-00001' },
        { namespace: 'bench-opkit-3-1', name: 'mc-00002' },
      ],
    });
  });

  it('deals the Memcacheds round-robin over numbered namespaces, none left empty', () => {
    const { namespaces, members } = fleetLayout('run', 4, 10);
    expect(namespaces).toEqual(['run-0', 'run-1', 'run-2', 'run-3']);
    expect(members).toHaveLength(10);
    expect(new Set(members.map((m) => m.name)).size).toBe(10);
    const perNamespace = namespaces.map((ns) => members.filter((m) => m.namespace === ns).length);
    expect(perNamespace).toEqual([3, 3, 2, 2]);
  });
});
