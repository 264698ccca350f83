/** Options of `nx run bench:envtest` (see src/envtest.ts). */
export interface EnvtestBenchOptions {
  readonly runs: number;
  readonly suiteRuns: number;
  readonly realNode: boolean;
}

/** The options from the command line and the environment; a malformed one is an error, not a default. */
export function parseEnvtestBenchOptions(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): EnvtestBenchOptions {
  const count = (name: string, fallback: number): number => {
    const arg = argv.find((a) => a.startsWith(`--${name}=`));
    if (arg === undefined) return fallback;
    const value = Number(arg.slice(name.length + 3));
    if (!Number.isInteger(value) || value < 1)
      throw new Error(`--${name}: expected a whole number ≥ 1, got ${arg}`);
    return value;
  };
  const unknown = argv.filter((a) => !/^--(runs|suite-runs)=/.test(a) && a !== '--real-node');
  if (unknown.length > 0)
    throw new Error(`unknown argument ${unknown[0]}: use --runs=<n>, --suite-runs=<n>, --real-node`);
  return {
    runs: count('runs', 5),
    suiteRuns: count('suite-runs', 1),
    realNode: argv.includes('--real-node') || env.OPKIT_BENCH_REAL_NODE === 'true',
  };
}
