/**
 * Whether a rule (`permission/escalation`) matches a policy's glob (`permission/*`, `*\/escalation`, `crd/*`,
 * `*`): `*` stands for any run of characters, `/` included; everything else is itself.
 */
export function ruleMatchesGlob(glob: string, rule: string): boolean {
  const pattern = glob
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${pattern}$`).test(rule);
}

/** Whether any of the globs matches the rule. */
export function ruleMatchesAny(globs: readonly string[], rule: string): boolean {
  return globs.some((g) => ruleMatchesGlob(g, rule));
}
