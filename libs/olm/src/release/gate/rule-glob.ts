/**
 * Whether a rule (`permission/escalation`) matches a policy's glob (`permission/*`, `*\/escalation`, `crd/*`,
 * `*`): `*` stands for any run of characters, `/` included; everything else is itself.
 */
export function ruleMatchesGlob(glob: string, rule: string): boolean {
  return compiledRuleGlob(glob).test(rule);
}

/**
 * Each glob compiled once: a release of a large catalog matches thousands of findings against a few globs. The
 * globs come from policies and annotations, so the cache starts over rather than grow without end.
 */
const compiledGlobs = new Map<string, RegExp>();
const COMPILED_GLOBS_KEPT = 4096;

/** The regular expression of a rule glob, compiled on its first use. */
export function compiledRuleGlob(glob: string): RegExp {
  let compiled = compiledGlobs.get(glob);
  if (compiled === undefined) {
    const pattern = glob
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*');
    compiled = new RegExp(`^${pattern}$`);
    if (compiledGlobs.size >= COMPILED_GLOBS_KEPT) compiledGlobs.clear();
    compiledGlobs.set(glob, compiled);
  }
  return compiled;
}

/** Whether any of the globs matches the rule. */
export function ruleMatchesAny(globs: readonly string[], rule: string): boolean {
  return globs.some((g) => ruleMatchesGlob(g, rule));
}
