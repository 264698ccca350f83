// Phase 3: finish migrations left open (a reconcile or the operator died half-way), per pair of nodes at once.

import type { ReachableContext } from './context.js';
import { resumeMoves } from './slot-migration.js';
import type { Observed, SyncResult } from './types.js';

interface OpenMigration {
  readonly from: Observed;
  readonly to: Observed;
  readonly slots: Set<number>;
}

export async function resumeMigrations(ctx: ReachableContext): Promise<SyncResult | undefined> {
  const { participants } = ctx;
  const open = new Map<string, OpenMigration>();
  const byId = new Map(participants.map((o) => [o.self.id, o]));
  const addOpen = (from: Observed, to: Observed, slot: number) => {
    const key = `${from.self.id}>${to.self.id}`;
    const entry = open.get(key) ?? { from, to, slots: new Set<number>() };
    entry.slots.add(slot);
    open.set(key, entry);
  };
  // A mark naming a node nobody knows any more (it was removed) can only be cleared.
  const unknown = (id: string) => !byId.has(id) && !participants.some((p) => p.view.some((v) => v.id === id));
  const orphans: Promise<unknown>[] = [];
  for (const o of participants) {
    for (const [slot, id] of o.self.migrating) {
      const to = byId.get(id);
      if (to) addOpen(o, to, slot);
      else if (unknown(id)) orphans.push(o.connection.call('CLUSTER', 'SETSLOT', slot, 'STABLE'));
    }
    for (const [slot, id] of o.self.importing) {
      const from = byId.get(id);
      if (from) addOpen(from, o, slot);
      else if (unknown(id)) orphans.push(o.connection.call('CLUSTER', 'SETSLOT', slot, 'STABLE'));
    }
  }
  await Promise.all(orphans);
  if (open.size === 0 && orphans.length === 0) return undefined;
  let count = orphans.length;
  for (const { from, to, slots } of open.values()) {
    await resumeMoves(
      from,
      to,
      [...slots].sort((a, b) => a - b),
      ctx.input.password,
    );
    count += slots.size;
  }
  ctx.actions.push({ reason: 'MigrationResumed', message: `finished ${count} open slot migration(s)` });
  return ctx.report('MigratingSlots', `finished ${count} open slot migration(s)`, {
    migrationsInProgress: count,
  });
}
