import { describe, expect, it } from 'vitest';
import { IndexedHeap } from './priority-heap.js';

interface Item {
  value: number;
}

describe('IndexedHeap', () => {
  it('pops in order after pushes, arbitrary removals and key changes', () => {
    let seed = 42;
    const random = (): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const heap = new IndexedHeap<Item>((a, b) => a.value < b.value);
    const live = new Set<Item>();
    for (let i = 0; i < 2_000; i++) {
      const roll = random();
      const members = [...live];
      const member = members[Math.floor(random() * members.length)];
      if (roll < 0.5 || !member) {
        const item = { value: Math.floor(random() * 100) };
        heap.push(item);
        live.add(item);
      } else if (roll < 0.7) {
        expect(heap.remove(member)).toBe(true);
        live.delete(member);
      } else if (roll < 0.9) {
        member.value = Math.floor(random() * 100);
        heap.fix(member);
      } else {
        const popped = heap.pop()!;
        expect(popped.value).toBe(Math.min(...members.map((m) => m.value)));
        live.delete(popped);
      }
      expect(heap.size).toBe(live.size);
    }
    const drained: number[] = [];
    for (let item = heap.pop(); item; item = heap.pop()) drained.push(item.value);
    expect(drained).toEqual([...live].map((m) => m.value).sort((a, b) => a - b));
  });

  it('reports membership and ignores removal of absent elements', () => {
    const heap = new IndexedHeap<Item>((a, b) => a.value < b.value);
    const item = { value: 1 };
    expect(heap.remove(item)).toBe(false);
    heap.push(item);
    expect(heap.has(item)).toBe(true);
    expect(heap.clear()).toEqual([item]);
    expect(heap.has(item)).toBe(false);
    expect(heap.peek()).toBeUndefined();
  });
});
