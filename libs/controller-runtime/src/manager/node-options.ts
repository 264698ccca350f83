/**
 * The Node flags an operator process runs with (`opkit image build` puts them on the image's entrypoint).
 *
 * V8 sizes its young generation for throughput: semi-spaces grow to tens of MiB on a machine with memory to
 * spare. An operator's garbage is small and short-lived (decoded watch events, request bodies) beside a steady
 * cache, so large semi-spaces only raise its resident memory. Measured with `nx run bench:converge --quick`
 * (200 Memcacheds), 2 MiB semi-spaces took the operator's peak RSS from 134 to 107 MiB, with no more CPU than
 * the noise between runs.
 */
export const OPERATOR_NODE_OPTIONS: readonly string[] = ['--max-semi-space-size=2'];
