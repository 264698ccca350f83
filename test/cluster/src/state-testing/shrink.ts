/**
 * Delta debugging (ddmin): the smallest sub-sequence of `items` (keeping their order) that still `fails`,
 * found by dropping chunks of halving size while the failure remains. Stops early when `budget` says so and
 * returns the smallest failing sequence found so far.
 */
export async function shrinkSequence<T>(
  items: readonly T[],
  fails: (candidate: readonly T[]) => Promise<boolean>,
  budget: () => boolean = () => true,
): Promise<T[]> {
  let current = [...items];
  let chunks = 2;
  while (current.length >= 2 && budget()) {
    const size = Math.ceil(current.length / chunks);
    let reduced = false;
    for (let start = 0; start < current.length && budget(); start += size) {
      const complement = [...current.slice(0, start), ...current.slice(start + size)];
      if (complement.length > 0 && (await fails(complement))) {
        current = complement;
        chunks = Math.max(chunks - 1, 2);
        reduced = true;
        break;
      }
    }
    if (!reduced) {
      if (size === 1) break;
      chunks = Math.min(chunks * 2, current.length);
    }
  }
  return current;
}
