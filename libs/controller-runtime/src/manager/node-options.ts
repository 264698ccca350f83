/**
 * The Node flags an operator process runs with (`opkit image build` puts them on the image's entrypoint).
 *
 * V8 sizes its young generation for throughput: semi-spaces grow to tens of MiB on a machine with memory to
 * spare. An operator's garbage is small and short-lived (decoded watch events, request bodies) beside a steady
 * cache, so large semi-spaces only raise its resident memory. Measured with `nx run bench:converge --quick`
 * (200 Memcacheds), 2 MiB semi-spaces took the operator's peak RSS from 134 to 107 MiB, with no more CPU than
 * the noise between runs.
 *
 * At idle (`nx run bench:idle`: caches synced, nothing to reconcile) the same flag takes the operator from 77 to
 * 71–72 MiB. Others measured there and left out: `--max-semi-space-size=1` saves 1.4 MiB more but cost 32 %
 * more CPU writing 400 Memcacheds' objects; `--lite-mode` saves 6 MiB at about 3 × the CPU under load;
 * `--optimize-for-size` saves 3 MiB at idle but nothing at a fleet's peak, for more CPU; `--single-threaded`,
 * `--v8-pool-size=1`, `--max-opt=2` and `MALLOC_ARENA_MAX=2` move it by less than 1 MiB. `--no-maglev` saves
 * 2.7 MiB at idle (the pages of the Maglev compiler, which compiles a dozen functions at start-up), but writing
 * 400 Memcacheds' objects took 43 % more CPU, and once the operator has worked the saving is about 1 MiB;
 * `MALLOC_MMAP_THRESHOLD_` and `MALLOC_TRIM_THRESHOLD_` change nothing.
 */
export const OPERATOR_NODE_OPTIONS: readonly string[] = ['--max-semi-space-size=2'];
