/**
 * What an operator still writes for a phase after the fleet counts as done. The fleet counts as converged
 * from what the cluster shows (conditions, Deployments), and an operator that reports no `observedGeneration`
 * counts as done before it has made its last writes: the guide's controller requeues through
 * controller-runtime's rate limiter and writes its status later, in the next phase or the steady window. So
 * a phase's writes per Memcached compare operators only once each has gone quiet.
 */
export interface Aftermath {
  /** From the end of the phase to the poll that saw the operator's last write; 0 when it wrote nothing more. */
  readonly elapsedMs: number;
  /** Writes after the end of the phase, until the operator went quiet. */
  readonly writes: number;
  /** The operator still wrote when the wait ran out: the figures are a lower bound. */
  readonly capped: boolean;
}

export interface QuietOptions {
  /** How long the operator must make no write to count as quiet. */
  readonly quietMs: number;
  /** The longest wait, from `since`. */
  readonly capMs: number;
  /** How often to read the operator's write count. */
  readonly pollMs: number;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Reads the operator's write count (`writesSoFar`, a counter) until it has not moved for `quietMs`, or until
 * `capMs` after `since`. `since` is when the phase ended and `writesAtSince` the count then.
 */
export async function untilQuiet(
  writesSoFar: () => Promise<number>,
  since: number,
  writesAtSince: number,
  o: QuietOptions,
): Promise<Aftermath> {
  const now = o.now ?? (() => performance.now());
  const sleep = o.sleep ?? realSleep;
  let writes = writesAtSince;
  let lastWriteAt = since;
  for (;;) {
    const count = await writesSoFar();
    const at = now();
    if (count !== writes) {
      writes = count;
      lastWriteAt = at;
    }
    const quiet = at - lastWriteAt >= o.quietMs;
    const capped = !quiet && at - since >= o.capMs;
    if (quiet || capped) {
      return { elapsedMs: Math.round(lastWriteAt - since), writes: writes - writesAtSince, capped };
    }
    await sleep(o.pollMs);
  }
}
