// Live slot migration between two primaries over RESP: IMPORTING, MIGRATING, MIGRATE the keys, SETSLOT NODE;
// and the completion of a migration a previous pass left open, whatever step it stopped at.

import { ReplyError } from '../../redis/resp.js';
import { REDIS_PORT } from '../resources.js';
import type { Observed } from './types.js';

const KEYS_PER_MIGRATE = 500;

/** Moves keys of slots that are MIGRATING on `from` to `to`, in batches, until none are left. */
async function migrateKeys(
  from: Observed,
  to: Observed,
  slots: readonly number[],
  password: string,
): Promise<void> {
  let pending = [...slots];
  while (pending.length > 0) {
    const found = await Promise.all(
      pending.map(
        (s) =>
          from.connection.callBinary('CLUSTER', 'GETKEYSINSLOT', s, KEYS_PER_MIGRATE) as Promise<Buffer[]>,
      ),
    );
    const next: number[] = [];
    const migrations: Promise<unknown>[] = [];
    pending.forEach((slot, i) => {
      const keys = found[i]!;
      if (keys.length === 0) return;
      // Fewer than asked for is all of them: keys a client creates now go to the target (ASK).
      if (keys.length === KEYS_PER_MIGRATE) next.push(slot);
      migrations.push(
        from.connection
          .send('MIGRATE', to.ip, REDIS_PORT, '', 0, 10_000, 'REPLACE', 'AUTH', password, 'KEYS', ...keys)
          .then((reply) => {
            if (reply instanceof ReplyError && !/NOKEY/.test(reply.reply)) throw reply;
          }),
      );
    });
    await Promise.all(migrations);
    pending = next;
  }
}

/** Live migration of slots from one primary to another: IMPORTING, MIGRATING, MIGRATE the keys, SETSLOT NODE. */
export async function moveSlots(
  from: Observed,
  to: Observed,
  slots: readonly number[],
  password: string,
): Promise<void> {
  const chunk = 256;
  for (let i = 0; i < slots.length; i += chunk) {
    const batch = slots.slice(i, i + chunk);
    await Promise.all(
      batch.map((s) => to.connection.call('CLUSTER', 'SETSLOT', s, 'IMPORTING', from.self.id)),
    );
    await Promise.all(
      batch.map((s) => from.connection.call('CLUSTER', 'SETSLOT', s, 'MIGRATING', to.self.id)),
    );
    await migrateKeys(from, to, batch, password);
    await claimOnTarget(to, batch);
    await Promise.all(batch.map((s) => assignOnSource(from, s, to.self.id)));
  }
}

/**
 * SETSLOT NODE on the target of a move, before the source: once the target owns the slots under the
 * cluster's highest config epoch, the source and everyone else can only agree. On an IMPORTING slot that
 * command bumps the epoch and also broadcasts a pong to every node, for each slot: that storm (each pong
 * rewrites and fsyncs nodes.conf on every receiver) made SETSLOT NODE the bulk of a move's time. So only the
 * first slot goes that way, for the epoch; the rest are closed (STABLE) and then claimed, which only records
 * the owner, and the target's regular gossip spreads them under the epoch it now has.
 */
async function claimOnTarget(to: Observed, slots: readonly number[]): Promise<void> {
  const [first, ...rest] = slots;
  if (first === undefined) return;
  await to.connection.call('CLUSTER', 'SETSLOT', first, 'NODE', to.self.id);
  await Promise.all(
    rest.flatMap((s) => [
      to.connection.call('CLUSTER', 'SETSLOT', s, 'STABLE'),
      to.connection.call('CLUSTER', 'SETSLOT', s, 'NODE', to.self.id),
    ]),
  );
}

/**
 * SETSLOT NODE on the source of a move. A primary that gave away its last slot turns itself into a replica
 * of the node that took it (Redis 7, cluster-allow-replica-migration) as soon as it hears of the new owner,
 * and then refuses SETSLOT: the slot is not its own any more either way.
 */
async function assignOnSource(from: Observed, slot: number, toId: string): Promise<void> {
  const reply = await from.connection.send('CLUSTER', 'SETSLOT', slot, 'NODE', toId);
  if (reply instanceof ReplyError && !/only with masters/i.test(reply.reply)) throw reply;
}

/** Completes migrations found open between two nodes, whatever step each stopped at. */
export async function resumeMoves(
  from: Observed,
  to: Observed,
  slots: readonly number[],
  password: string,
): Promise<void> {
  const calls: Promise<unknown>[] = [];
  const unfinished: number[] = [];
  for (const slot of slots) {
    if (to.self.slots.includes(slot)) {
      // Stopped after the target claimed the slot: only marks are left.
      if (to.self.importing.has(slot))
        calls.push(to.connection.call('CLUSTER', 'SETSLOT', slot, 'NODE', to.self.id));
      if (from.self.migrating.has(slot)) calls.push(assignOnSource(from, slot, to.self.id));
    } else if (!from.self.slots.includes(slot)) {
      // Neither side owns the slot (its owner failed over, say): the keys are elsewhere; clear the marks.
      if (to.self.importing.has(slot)) calls.push(to.connection.call('CLUSTER', 'SETSLOT', slot, 'STABLE'));
      if (from.self.migrating.has(slot))
        calls.push(from.connection.call('CLUSTER', 'SETSLOT', slot, 'STABLE'));
    } else {
      unfinished.push(slot);
    }
  }
  await Promise.all(calls);
  if (unfinished.length === 0) return;
  await Promise.all(
    unfinished
      .filter((s) => !to.self.importing.has(s))
      .map((s) => to.connection.call('CLUSTER', 'SETSLOT', s, 'IMPORTING', from.self.id)),
  );
  await Promise.all(
    unfinished
      .filter((s) => !from.self.migrating.has(s))
      .map((s) => from.connection.call('CLUSTER', 'SETSLOT', s, 'MIGRATING', to.self.id)),
  );
  await migrateKeys(from, to, unfinished, password);
  await claimOnTarget(to, unfinished);
  await Promise.all(unfinished.map((s) => assignOnSource(from, s, to.self.id)));
}
