/**
 * A binary heap that also knows where each element sits, so an element can be removed or re-positioned after
 * its sort key changed (a re-add that raises a priority or pulls a deadline forward) in O(log n), without the
 * stale duplicates a lazy-deletion heap would accumulate.
 *
 * Elements are compared by identity: the same object may be in the heap at most once.
 */
export class IndexedHeap<T> {
  readonly #before: (a: T, b: T) => boolean;
  readonly #items: T[] = [];
  readonly #positions = new Map<T, number>();

  /** @param before `true` when `a` must come out before `b`. */
  constructor(before: (a: T, b: T) => boolean) {
    this.#before = before;
  }

  /** Number of elements. */
  get size(): number {
    return this.#items.length;
  }

  /** Whether `item` is in the heap. */
  has(item: T): boolean {
    return this.#positions.has(item);
  }

  /** The first element, without removing it. */
  peek(): T | undefined {
    return this.#items[0];
  }

  /** Adds an element. */
  push(item: T): void {
    this.#items.push(item);
    this.#positions.set(item, this.#items.length - 1);
    this.#up(this.#items.length - 1);
  }

  /** Removes and returns the first element. */
  pop(): T | undefined {
    const first = this.#items[0];
    if (first !== undefined) this.remove(first);
    return first;
  }

  /** Removes an arbitrary element; returns whether it was there. */
  remove(item: T): boolean {
    const index = this.#positions.get(item);
    if (index === undefined) return false;
    const last = this.#items.pop()!;
    this.#positions.delete(item);
    if (index < this.#items.length) {
      this.#place(last, index);
      this.fix(last);
    }
    return true;
  }

  /** Restores the heap order after `item`'s sort key changed. */
  fix(item: T): void {
    const index = this.#positions.get(item);
    if (index !== undefined) this.#down(this.#up(index));
  }

  /** Removes every element, returning them in no particular order. */
  clear(): T[] {
    const items = this.#items.splice(0);
    this.#positions.clear();
    return items;
  }

  #place(item: T, index: number): void {
    this.#items[index] = item;
    this.#positions.set(item, index);
  }

  #up(index: number): number {
    const item = this.#items[index]!;
    while (index > 0) {
      const parentIndex = (index - 1) >> 1;
      const parent = this.#items[parentIndex]!;
      if (!this.#before(item, parent)) break;
      this.#place(parent, index);
      index = parentIndex;
    }
    this.#place(item, index);
    return index;
  }

  #down(index: number): void {
    const item = this.#items[index]!;
    const length = this.#items.length;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= length) break;
      const right = left + 1;
      const child = right < length && this.#before(this.#items[right]!, this.#items[left]!) ? right : left;
      if (!this.#before(this.#items[child]!, item)) break;
      this.#place(this.#items[child]!, index);
      index = child;
    }
    this.#place(item, index);
  }
}
