import { describe, expect, it } from 'vitest';
import { evenShare, SLOTS } from '../../redis/cluster.js';
import { clusterShape, replicaQuota } from './redis-cluster-shape.js';

const SIZES = Array.from({ length: 118 }, (_, i) => i + 3);
const REPLICAS = [0, 1, 2, 3, 4, 5];

/** Every node gets one role: primary i, or replica of primary i; checks the shape's invariants on the way. */
function roles(size: number, replicasPerPrimary: number): string[] {
  const shape = clusterShape(size, replicasPerPrimary);
  const nodes = Array.from({ length: shape.primaries }, (_, i) => `primary ${i}`);
  shape.replicas.forEach((n, i) => {
    for (let k = 0; k < n; k++) nodes.push(`replica of ${i}`);
  });
  return nodes;
}

/** Which primary owns each slot when `primaries` split them evenly; throws on a slot owned twice. */
function slotOwners(primaries: number): number[] {
  const owner = new Array<number>(SLOTS).fill(-1);
  for (let i = 0; i < primaries; i++) {
    const [from, to] = evenShare(i, primaries);
    for (let s = from; s <= to; s++) {
      if (owner[s] !== -1) throw new Error(`slot ${s} owned by primaries ${owner[s]} and ${i}`);
      owner[s] = i;
    }
  }
  return owner;
}

describe('clusterShape (how size nodes split into primaries and replicas)', () => {
  it('gives the guide’s sizes a cluster: 3 → 3 primaries, 5 → 3 primaries and 2 replicas, 6 → 3 + 3', () => {
    expect(clusterShape(3, 1)).toEqual({ primaries: 3, replicas: [0, 0, 0] });
    expect(clusterShape(5, 1)).toEqual({ primaries: 3, replicas: [1, 1, 0] });
    expect(clusterShape(6, 1)).toEqual({ primaries: 3, replicas: [1, 1, 1] });
    expect(clusterShape(7, 1)).toEqual({ primaries: 4, replicas: [1, 1, 1, 0] });
    expect(clusterShape(10, 2)).toEqual({ primaries: 4, replicas: [2, 2, 1, 1] });
    expect(clusterShape(4, 0)).toEqual({ primaries: 4, replicas: [0, 0, 0, 0] });
  });

  it('for every size and replicasPerPrimary: every node has a role, at least 3 primaries, replicas within bounds', () => {
    for (const size of SIZES) {
      for (const r of REPLICAS) {
        const shape = clusterShape(size, r);
        const where = `size ${size}, replicasPerPrimary ${r}`;
        expect(roles(size, r), where).toHaveLength(size);
        expect(shape.primaries, where).toBeGreaterThanOrEqual(3);
        expect(Math.max(...shape.replicas), where).toBeLessThanOrEqual(r);
        // Spread: no primary has two replicas more than another, the first ones take the remainder.
        expect(Math.max(...shape.replicas) - Math.min(...shape.replicas), where).toBeLessThanOrEqual(1);
        expect(
          [...shape.replicas].sort((a, b) => b - a),
          where,
        ).toEqual(shape.replicas);
        // Fewest primaries that keep replicas within replicasPerPrimary (beyond the minimum of 3).
        if (shape.primaries > 3) expect((shape.primaries - 1) * (r + 1), where).toBeLessThan(size);
        shape.replicas.forEach((n, i) => {
          expect(replicaQuota(size, shape.primaries, i), where).toBe(n);
        });
        expect(replicaQuota(size, shape.primaries, shape.primaries), where).toBe(0);
      }
    }
  });

  it('for every size: the primaries’ even shares cover slots 0..16383 exactly once', () => {
    const counts = new Set(SIZES.flatMap((size) => REPLICAS.map((r) => clusterShape(size, r).primaries)));
    for (const primaries of counts) {
      expect(
        slotOwners(primaries).every((o) => o >= 0 && o < primaries),
        `${primaries} primaries`,
      ).toBe(true);
    }
  });

  it('scaling up or down between any two sizes plans a valid cluster on both sides', () => {
    for (const r of REPLICAS) {
      for (const from of SIZES) {
        for (const to of [from - 2, from - 1, from + 1, from + 2].filter((s) => s >= 3 && s <= 120)) {
          const before = clusterShape(from, r);
          const after = clusterShape(to, r);
          const where = `${from} → ${to}, replicasPerPrimary ${r}`;
          // More nodes never mean fewer primaries, nor fewer nodes more.
          if (to > from) expect(after.primaries, where).toBeGreaterThanOrEqual(before.primaries);
          else expect(after.primaries, where).toBeLessThanOrEqual(before.primaries);
          expect(after.primaries + after.replicas.reduce((a, b) => a + b, 0), where).toBe(to);
          // The slots still end up owned exactly once after the move.
          expect(
            slotOwners(after.primaries).filter((o) => o < 0),
            where,
          ).toEqual([]);
        }
      }
    }
  });

  it('scales the guide’s cluster from 3 to 5 and back by adding and removing replicas only', () => {
    expect(clusterShape(3, 1).primaries).toBe(clusterShape(5, 1).primaries);
    expect(roles(5, 1).slice(3)).toEqual(['replica of 0', 'replica of 1']);
    expect(roles(3, 1)).toEqual(['primary 0', 'primary 1', 'primary 2']);
  });
});
