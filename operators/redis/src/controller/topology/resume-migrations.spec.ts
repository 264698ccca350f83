import { describe, expect, it } from 'vitest';
import { resumeMigrations } from './resume-migrations.js';
import { reachableContext } from './testing/contexts.js';
import { FakeCluster, type FakeNodeSpec } from './testing/fake-cluster.js';
import { primaries } from './testing/shapes.js';

const shape = { size: 3, primaries: 3, replicasPerPrimary: 0 };

const withMarks = (marks: Record<string, Partial<FakeNodeSpec>>) =>
  new FakeCluster(primaries(3).map((n) => ({ ...n, ...marks[n.pod] })));

describe('resumeMigrations', () => {
  it('carries a move that stopped before the target claimed the slot through to the end', async () => {
    const cluster = withMarks({
      'redis-0': { migrating: { 100: 'redis-1' } },
      'redis-1': { importing: { 100: 'redis-0' } },
    });
    const result = await resumeMigrations(reachableContext(cluster, shape));
    expect(cluster.commands).toEqual([
      'redis-0: CLUSTER GETKEYSINSLOT 100 500',
      'redis-1: CLUSTER SETSLOT 100 NODE a1',
      'redis-0: CLUSTER SETSLOT 100 NODE a1',
    ]);
    expect(cluster.slotsOf('redis-1')).toContain(100);
    expect(result?.phase).toBe('MigratingSlots');
    expect(result?.message).toBe('finished 1 open slot migration(s)');
    expect(result?.migrationsInProgress).toBe(1);
    expect(result?.actions).toEqual([
      { reason: 'MigrationResumed', message: 'finished 1 open slot migration(s)' },
    ]);
  });

  it('sets the marks a move stopped before, source side only marked', async () => {
    const cluster = withMarks({ 'redis-0': { migrating: { 100: 'redis-1' } } });
    await resumeMigrations(reachableContext(cluster, shape));
    expect(cluster.commands).toEqual([
      'redis-1: CLUSTER SETSLOT 100 IMPORTING a0',
      'redis-0: CLUSTER GETKEYSINSLOT 100 500',
      'redis-1: CLUSTER SETSLOT 100 NODE a1',
      'redis-0: CLUSTER SETSLOT 100 NODE a1',
    ]);
  });

  it('only clears the marks once the target owns the slot', async () => {
    const cluster = withMarks({
      'redis-0': { slots: '0-99 101-5460', migrating: { 100: 'redis-1' } },
      'redis-1': { slots: '100 5461-10921', importing: { 100: 'redis-0' } },
    });
    await resumeMigrations(reachableContext(cluster, shape));
    expect(cluster.commands).toEqual([
      'redis-1: CLUSTER SETSLOT 100 NODE a1',
      'redis-0: CLUSTER SETSLOT 100 NODE a1',
    ]);
  });

  it('clears the marks of a slot neither side owns any more', async () => {
    const cluster = withMarks({
      'redis-0': { slots: '0-99 101-5460', migrating: { 100: 'redis-1' } },
      'redis-1': { importing: { 100: 'redis-0' } },
      'redis-2': { slots: '100 10922-16383' },
    });
    await resumeMigrations(reachableContext(cluster, shape));
    expect(cluster.commands).toEqual([
      'redis-1: CLUSTER SETSLOT 100 STABLE',
      'redis-0: CLUSTER SETSLOT 100 STABLE',
    ]);
  });

  it('clears a mark naming a node nobody knows any more', async () => {
    const cluster = withMarks({ 'redis-2': { importing: { 16000: 'ee' } } });
    const result = await resumeMigrations(reachableContext(cluster, shape));
    expect(cluster.commands).toEqual(['redis-2: CLUSTER SETSLOT 16000 STABLE']);
    expect(result?.message).toBe('finished 1 open slot migration(s)');
  });

  it('does nothing without open slots', async () => {
    expect(await resumeMigrations(reachableContext(withMarks({}), shape))).toBeUndefined();
  });
});
