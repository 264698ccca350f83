/**
 * How serious a finding is. `error`: users are harmed by publishing as it is (stranded installations, an unsafe
 * CRD change, a permission escalation); the gate fails on it unless its policy says otherwise. `warning`: worth a
 * reviewer's eye. `info`: a change a reviewer may want to read, never a failure.
 */
export type FindingSeverity = 'error' | 'warning' | 'info';

/** One thing a release check found, said in one line that names the package, bundle and field it is about. */
export interface Finding {
  /**
   * The rule that found it, `<family>/<rule>` in kebab case (`upgrade/stranded`, `crd/field-removed`,
   * `permission/cluster-scope`): stable, as policies and reports name it.
   */
  readonly rule: string;
  readonly severity: FindingSeverity;
  readonly package: string;
  /** The channel it is about, where it is about one. */
  readonly channel?: string;
  /** The upgrade edge it is on, by bundle name, where it is about one. */
  readonly edge?: { readonly from: string; readonly to: string };
  /** What exactly: a CRD and field path, an RBAC rule, a bundle; in the words of the message. */
  readonly subject?: string;
  /** One line, no trailing period, naming what it is about. */
  readonly message: string;
}

/** Orders findings for reports: by package, channel, edge, rule and message, bytewise as Go sorts strings. */
export function compareFindings(a: Finding, b: Finding): number {
  const key = (f: Finding): string[] => [
    f.package,
    f.channel ?? '',
    f.edge?.from ?? '',
    f.edge?.to ?? '',
    f.rule,
    f.subject ?? '',
    f.message,
  ];
  const ka = key(a);
  const kb = key(b);
  for (let i = 0; i < ka.length; i++) {
    const x = ka[i] as string;
    const y = kb[i] as string;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}
