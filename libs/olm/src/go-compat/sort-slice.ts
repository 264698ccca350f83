/**
 * Go's `sort.Slice`: pattern-defeating quicksort, which is not stable. Up to 12 elements it is an insertion sort
 * (stable); beyond that, elements that compare equal end up in the order Go's algorithm leaves them, which opm's
 * output shows (related images sharing one image). Reproduced step for step so that order matches byte for byte.
 * Sorts `items` in place and returns it.
 */
export function goSortSlice<T>(items: T[], less: (a: T, b: T) => boolean): T[] {
  const data = new Data(items, less);
  pdqsort(data, 0, items.length, bitLength(items.length));
  return items;
}

class Data<T> {
  constructor(
    private readonly items: T[],
    private readonly lessFn: (a: T, b: T) => boolean,
  ) {}
  less(i: number, j: number): boolean {
    return this.lessFn(this.items[i]!, this.items[j]!);
  }
  swap(i: number, j: number): void {
    const t = this.items[i]!;
    this.items[i] = this.items[j]!;
    this.items[j] = t;
  }
}

type Hint = 'unknown' | 'increasing' | 'decreasing';

/** Go's `bits.Len`. */
const bitLength = (n: number): number => (n === 0 ? 0 : n.toString(2).length);

function insertionSort<T>(data: Data<T>, a: number, b: number): void {
  for (let i = a + 1; i < b; i++) {
    for (let j = i; j > a && data.less(j, j - 1); j--) data.swap(j, j - 1);
  }
}

function siftDown<T>(data: Data<T>, lo: number, hi: number, first: number): void {
  let root = lo;
  for (;;) {
    let child = 2 * root + 1;
    if (child >= hi) return;
    if (child + 1 < hi && data.less(first + child, first + child + 1)) child++;
    if (!data.less(first + root, first + child)) return;
    data.swap(first + root, first + child);
    root = child;
  }
}

function heapSort<T>(data: Data<T>, a: number, b: number): void {
  const hi = b - a;
  for (let i = Math.floor((hi - 1) / 2); i >= 0; i--) siftDown(data, i, hi, a);
  for (let i = hi - 1; i >= 0; i--) {
    data.swap(a, a + i);
    siftDown(data, 0, i, a);
  }
}

function pdqsort<T>(data: Data<T>, a0: number, b0: number, limit0: number): void {
  let a = a0;
  let b = b0;
  let limit = limit0;
  let wasBalanced = true;
  let wasPartitioned = true;
  for (;;) {
    const length = b - a;
    if (length <= 12) {
      insertionSort(data, a, b);
      return;
    }
    if (limit === 0) {
      heapSort(data, a, b);
      return;
    }
    if (!wasBalanced) {
      breakPatterns(data, a, b);
      limit--;
    }
    let [pivot, hint] = choosePivot(data, a, b);
    if (hint === 'decreasing') {
      reverseRange(data, a, b);
      pivot = b - 1 - (pivot - a);
      hint = 'increasing';
    }
    if (wasBalanced && wasPartitioned && hint === 'increasing' && partialInsertionSort(data, a, b)) return;
    if (a > 0 && !data.less(a - 1, pivot)) {
      a = partitionEqual(data, a, b, pivot);
      continue;
    }
    const [mid, alreadyPartitioned] = partition(data, a, b, pivot);
    wasPartitioned = alreadyPartitioned;
    const leftLen = mid - a;
    const rightLen = b - mid;
    const balanceThreshold = Math.floor(length / 8);
    if (leftLen < rightLen) {
      wasBalanced = leftLen >= balanceThreshold;
      pdqsort(data, a, mid, limit);
      a = mid + 1;
    } else {
      wasBalanced = rightLen >= balanceThreshold;
      pdqsort(data, mid + 1, b, limit);
      b = mid;
    }
  }
}

function partition<T>(data: Data<T>, a: number, b: number, pivot: number): [number, boolean] {
  data.swap(a, pivot);
  let i = a + 1;
  let j = b - 1;
  while (i <= j && data.less(i, a)) i++;
  while (i <= j && !data.less(j, a)) j--;
  if (i > j) {
    data.swap(j, a);
    return [j, true];
  }
  data.swap(i, j);
  i++;
  j--;
  for (;;) {
    while (i <= j && data.less(i, a)) i++;
    while (i <= j && !data.less(j, a)) j--;
    if (i > j) break;
    data.swap(i, j);
    i++;
    j--;
  }
  data.swap(j, a);
  return [j, false];
}

function partitionEqual<T>(data: Data<T>, a: number, b: number, pivot: number): number {
  data.swap(a, pivot);
  let i = a + 1;
  let j = b - 1;
  for (;;) {
    while (i <= j && !data.less(a, i)) i++;
    while (i <= j && data.less(a, j)) j--;
    if (i > j) return i;
    data.swap(i, j);
    i++;
    j--;
  }
}

function partialInsertionSort<T>(data: Data<T>, a: number, b: number): boolean {
  const maxSteps = 5;
  const shortestShifting = 50;
  let i = a + 1;
  for (let step = 0; step < maxSteps; step++) {
    while (i < b && !data.less(i, i - 1)) i++;
    if (i === b) return true;
    if (b - a < shortestShifting) return false;
    data.swap(i, i - 1);
    if (i - a >= 2) {
      for (let j = i - 1; j >= 1; j--) {
        if (!data.less(j, j - 1)) break;
        data.swap(j, j - 1);
      }
    }
    if (b - i >= 2) {
      for (let j = i + 1; j < b; j++) {
        if (!data.less(j, j - 1)) break;
        data.swap(j, j - 1);
      }
    }
  }
  return false;
}

const MASK64 = (1n << 64n) - 1n;

function breakPatterns<T>(data: Data<T>, a: number, b: number): void {
  const length = b - a;
  if (length < 8) return;
  // Go's xorshift on a uint64 seeded with the length.
  let random = BigInt(length);
  const modulus = BigInt(2 ** bitLength(length));
  const half = Math.floor(length / 4) * 2;
  for (let idx = a + half - 1; idx <= a + half + 1; idx++) {
    random ^= (random << 13n) & MASK64;
    random ^= random >> 7n;
    random ^= (random << 17n) & MASK64;
    let other = Number(random & (modulus - 1n));
    if (other >= length) other -= length;
    data.swap(idx, a + other);
  }
}

function choosePivot<T>(data: Data<T>, a: number, b: number): [number, Hint] {
  const shortestNinther = 50;
  const maxSwaps = 4 * 3;
  const l = b - a;
  const swaps = { count: 0 };
  let i = a + Math.floor(l / 4);
  let j = a + Math.floor(l / 4) * 2;
  let k = a + Math.floor(l / 4) * 3;
  if (l >= 8) {
    if (l >= shortestNinther) {
      i = median(data, i - 1, i, i + 1, swaps);
      j = median(data, j - 1, j, j + 1, swaps);
      k = median(data, k - 1, k, k + 1, swaps);
    }
    j = median(data, i, j, k, swaps);
  }
  if (swaps.count === 0) return [j, 'increasing'];
  if (swaps.count === maxSwaps) return [j, 'decreasing'];
  return [j, 'unknown'];
}

function median<T>(data: Data<T>, a: number, b: number, c: number, swaps: { count: number }): number {
  const [lowAB, highAB] = order2(data, a, b, swaps);
  const [middle] = order2(data, highAB, c, swaps);
  return order2(data, lowAB, middle, swaps)[1];
}

function order2<T>(data: Data<T>, a: number, b: number, swaps: { count: number }): [number, number] {
  if (data.less(b, a)) {
    swaps.count++;
    return [b, a];
  }
  return [a, b];
}

function reverseRange<T>(data: Data<T>, a: number, b: number): void {
  for (let i = a, j = b - 1; i < j; i++, j--) data.swap(i, j);
}
